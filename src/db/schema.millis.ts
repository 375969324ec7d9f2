/** All timestamps are integer milliseconds since the Unix epoch (UTC): exact on both engines. */
export type Millis = number;
