import { Type } from '@sinclair/typebox';

/** `GET /auth/status`: what the dashboard's sign-in page says (outside /v1, not in the API document). */
export const SignInStatusSchema = Type.Object(
  {
    available: Type.Boolean({ description: 'Whether sign-in works on this server.' }),
    development: Type.Boolean({ description: 'Whether it is the built-in development sign-in (any email and password).' }),
    message: Type.Union([Type.String(), Type.Null()], { description: 'What the sign-in page shows, when there is something to say.' }),
  },
  { additionalProperties: false },
);
