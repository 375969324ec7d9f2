// The ruleset that openapi.json is linted with (test/openapi.spectral.test.ts; the Spectral CLI reads
// it too): Spectral's OpenAPI rules and the OWASP API Security Top 10 (2023) rules. A rule that does not
// fit this API is turned off or narrowed below, each with the reason.
import { oas } from '@stoplight/spectral-rulesets';
import owasp from '@stoplight/spectral-owasp-ruleset';

/** An OWASP rule checking only what `given` selects. */
const narrowed = (name, given) => ({ ...owasp.rules[name], given });

/** The /v1 paths and Langfuse's /api/public ones: the API that credentials, rate limits per credential and CORS apply to. */
const API = '$.paths[?(@property.match(/^\\/(v1|api\\/public)\\//))]';
/** Every path but the health checks, which are never rate-limited (a load balancer always gets an answer). */
const LIMITED = '$.paths[?(!@property.match(/^\\/(healthz|readyz)$/))]';
/**
 * What a request carries: parameters and bodies (responses describe what the server sends: nothing to
 * bound). Not `limit`: it is clamped to 1..100, never refused, so any integer is accepted.
 */
const requests = (selector) => [`$.paths[*][*].parameters[?(@.name != 'limit')]..${selector}`, `$.paths[*][*].requestBody..${selector}`];
/**
 * Strings with a length of their own: not date-times (their format sets it), nor the values of a
 * free-form map (the variables of a render), which only the body limit (10 MB) bounds.
 */
const STRINGS = '[?(@ && @.type=="string" && @.format != "date-time" && !@path.match(/patternProperties/))]';
const INTEGERS = '[?(@ && @.type=="integer")]';
const ARRAYS = '[?(@ && @.type=="array")]';

export default {
  extends: [oas, owasp],
  rules: {
    // A self-hosted service: its contact is its operator's, not known where the document is generated.
    'info-contact': 'off',

    // `token_id` is the id of a token record, not a credential; names ending in `_id` are ids.
    'owasp:api2:2023-no-credentials-in-url': narrowed(
      'owasp:api2:2023-no-credentials-in-url',
      '$..parameters[?(@ && @.in && @.in.match(/query|path/) && !@.name.match(/_id$/))].name',
    ),

    // The committed document describes the local default instance; a deployment serves its own at
    // /openapi.json with its public (https) URL. http is accepted for localhost only, as the server's
    // own rule for allowed origins does.
    'owasp:api8:2023-no-server-http': {
      ...owasp.rules['owasp:api8:2023-no-server-http'],
      then: { ...owasp.rules['owasp:api8:2023-no-server-http'].then, functionOptions: { notMatch: '^http:(?!//localhost(:[0-9]+)?$)' } },
    },

    // HTTP Basic is Langfuse's scheme, taken on Langfuse's paths only so that its SDKs send unchanged: its
    // password is a personal access token, verified as the bearer token is (TLS is the deployment's, as
    // for bearer tokens). Every other route takes bearer tokens alone.
    'owasp:api2:2023-no-http-basic': 'off',

    // Health checks are never rate-limited; every other response documents the RateLimit-* headers.
    'owasp:api4:2023-rate-limit': narrowed('owasp:api4:2023-rate-limit', `${LIMITED}..responses[?(@property.match(/^(2|4)/))]`),
    'owasp:api4:2023-rate-limit-responses-429': narrowed('owasp:api4:2023-rate-limit-responses-429', `${LIMITED}..responses`),

    // The operational routes take no credential and no input: no 401, no 400.
    'owasp:api8:2023-define-error-responses-401': narrowed('owasp:api8:2023-define-error-responses-401', `${API}..responses`),
    'owasp:api8:2023-define-error-validation': narrowed('owasp:api8:2023-define-error-validation', `${API}..responses`),

    // CORS applies to /v1, the API that browsers call; the operational routes send no CORS headers.
    'owasp:api8:2023-define-cors-origin': narrowed('owasp:api8:2023-define-cors-origin', `${API}..responses[*].headers`),

    // Bounds on what the server accepts: checked on parameters and request bodies only.
    'owasp:api4:2023-string-limit': narrowed('owasp:api4:2023-string-limit', requests(STRINGS)),
    // Free text (names, descriptions, templates) has no shape to state, and ids are opaque (clients
    // must not parse them; an unknown one is a 404).
    'owasp:api4:2023-string-restricted': 'off',
    'owasp:api4:2023-array-limit': narrowed('owasp:api4:2023-array-limit', requests(ARRAYS)),
    'owasp:api4:2023-integer-limit': narrowed('owasp:api4:2023-integer-limit', requests(INTEGERS)),
    'owasp:api4:2023-integer-format': narrowed('owasp:api4:2023-integer-format', requests(INTEGERS)),
  },
};
