/*
 * The flags a test helper puts before the test's own, each left out when the test gives it: a
 * flag of one value given twice is a usage error (review M2).
 */

/** `defaults` (pairs of a flag and its value) without those `args` gives, then `args`. */
export function withDefaultFlags(defaults: [string, string][], args: string[]): string[] {
  const given = (flag: string): boolean =>
    args.some((arg) => arg === flag || arg.startsWith(`${flag}=`))
  const kept = defaults.filter(([flag]) => !given(flag)).flat()
  return args[0] === 'sweep' ? ['sweep', ...kept, ...args.slice(1)] : [...kept, ...args]
}
