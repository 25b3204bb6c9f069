/**
 * The hosts a connection without TLS may go to: `localhost` (any case), an IPv4 literal inside
 * 127.0.0.0/8 written as four decimal octets of 0–255, or `[::1]`. Nothing else, and never a
 * name a resolver would look up: `127.1`, `0x7f.1`, `127.0.0.08`, `127.999.999.999` and
 * `localhost.` are names to a resolver (its search domains included), not loopback.
 */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])'
const LOOPBACK = new RegExp(`^(?:localhost|127(?:\\.${OCTET}){3}|\\[::1\\])$`, 'i')

/** Whether `hostname` (as URL.hostname spells it, IPv6 in brackets) is a loopback host. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname)
}
