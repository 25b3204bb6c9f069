/*
 * The settings of a property run: in CI a fixed seed (a failure is reproducible), and under
 * FC_SEED the seed it names (the scheduled workflow, .github/workflows/properties.yml, draws a
 * fresh one and prints it; fast-check names the seed and path of any counterexample).
 */
export function propertyRuns(fixedSeed: number, numRuns: number) {
  const fromEnv = process.env.FC_SEED
  const seed = fromEnv && /^-?\d+$/.test(fromEnv) ? Number(fromEnv) : fixedSeed
  return { seed, numRuns, endOnFailure: true }
}
