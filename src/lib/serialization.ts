import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
const eager: Factory = SerializerSelector();

/**
 * Fastify's response serializers (fast-json-stringify), each compiled on its first use instead of for
 * every route and status at start: compiling them all was most of the start-up time (seconds of CPU)
 * and of the idle memory. The serializer, once compiled, is the same one Fastify would have built.
 */
export const lazySerializers: Factory = (externalSchemas, options) => {
  const compile = eager(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= compile(route))(data);
  };
};
