import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type LevelAware = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * A request's logger: pino's child of the server's logger with the request's id, made when the request
 * first logs at a level that is on. Fastify makes one for every request, and pino serializes its bindings
 * each time; at `LOG_LEVEL=warn` or above a request logs nothing unless it fails, so most never need it
 * (at the default, `info`, Fastify logs every request and each makes its child as before). Once made, it is the child pino would have made (level, bindings, serializers).
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LevelAware & { isLevelEnabled: (level: string) => boolean },
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: Level, args: unknown[]): void {
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.logger()[level] as (...a: unknown[]) => void)(...args);
  }
}

/** Fastify's `childLoggerFactory`: a `RequestLogger`, or pino's own child where one is asked with its own level. */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = function (logger, bindings, options) {
  const parent = logger as LevelAware;
  if (typeof parent.isLevelEnabled !== 'function' || (options as { level?: unknown }).level !== undefined) return logger.child(bindings, options);
  return new RequestLogger(parent as LevelAware & { isLevelEnabled: (level: string) => boolean }, bindings, options) as unknown as FastifyBaseLogger;
};
