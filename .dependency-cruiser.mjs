/*
 * The layers of src/, one direction: domain → api → wait → report → steps → gate → the two front
 * ends, the action's runner and the command (each may import those before it, never those after;
 * the front ends never import each other). Each optional step is a folder of src/steps/ that imports
 * no other step, and report/ imports none: it loops over the steps' sections. The front ends run
 * the gate through its run (src/gate/gate-run.ts: secrets, signals, banner, warnings, the production
 * dependencies), never gate.ts, the API, the wait or a step themselves. Only the runner touches the
 * runner's toolkit and GitHub.
 * `npm run lint` runs it; docs/development.md draws the same graph (npm run graph), and
 * __tests__/tooling/layers.test.ts shows each rule failing on a tree that breaks it.
 */
const LATER = {
  domain: 'api|wait|report|steps|gate|runner|command',
  api: 'wait|report|steps|gate|runner|command',
  wait: 'report|steps|gate|runner|command',
  // report/ and src/steps/: report-imports-no-step below.
  report: 'gate|runner|command',
  steps: 'gate|runner|command',
  gate: 'runner|command'
}

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle makes the layers meaningless.',
      from: {},
      to: { circular: true }
    },
    ...Object.entries(LATER).map(([layer, later]) => ({
      name: `${layer}-imports-no-later-layer`,
      severity: 'error',
      comment: `src/${layer}/ may import only the layers before it.`,
      from: { path: `^src/${layer}/` },
      to: { path: `^src/(${later})/` }
    })),
    {
      name: 'step-imports-no-step',
      severity: 'error',
      comment:
        'A step (a folder of src/steps/) stands alone: it imports no other step, only src/steps/step.ts and the layers before it.',
      from: { path: '^src/steps/([^/]+)/' },
      to: { path: '^src/steps/[^/]+/', pathNot: '^src/steps/$1/' }
    },
    {
      name: 'report-imports-no-step',
      severity: 'error',
      comment:
        'report/ knows no step: it loops over the sections the steps bring (src/report/section.ts).',
      from: { path: '^src/report/' },
      to: { path: '^src/steps/' }
    },
    {
      name: 'runner-imports-no-command',
      severity: 'error',
      comment: 'The front ends never import each other: the action stands on the gate alone.',
      from: { path: '^src/runner/' },
      to: { path: '^src/command/' }
    },
    {
      name: 'command-imports-no-runner',
      severity: 'error',
      comment: 'The front ends never import each other: the command stands on the gate alone.',
      from: { path: '^src/command/' },
      to: { path: '^src/runner/' }
    },
    {
      name: 'front-ends-run-the-gate-through-its-run',
      severity: 'error',
      comment:
        'A front end reads its inputs, runs them with src/gate/gate-run.ts and publishes the report: the wiring around gate() exists once.',
      from: { path: '^src/(runner|command)/' },
      to: { path: '^src/gate/gate\\.ts$' }
    },
    {
      name: 'front-ends-reach-the-api-only-through-the-run',
      severity: 'error',
      comment:
        'The production dependencies (the transport, the database, the retry policy), the wait and the steps are the run’s, not each front end’s.',
      from: { path: '^src/(runner|command)/' },
      to: { path: '^src/(api|wait|steps)/' }
    },
    {
      name: 'only-index-imports-nothing-but-runner',
      severity: 'error',
      comment: 'src/index.ts is thin: it starts the runner.',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/(?!runner/)' }
    },
    {
      name: 'toolkit-only-in-runner',
      severity: 'error',
      comment:
        'Only the runner layer talks to the runner (@actions/core, …) and GitHub (@actions/github); the API layer keeps only the proxy rules of @actions/http-client.',
      from: { path: '^src/(?!runner/)' },
      to: { path: '@actions/(?!http-client/)' }
    },
    {
      name: 'command-imports-no-toolkit',
      severity: 'error',
      comment:
        'The command runs outside GitHub Actions: it imports no @actions/ package itself (the API layer keeps the proxy rules of @actions/http-client).',
      from: { path: '^src/command/' },
      to: { path: '@actions/' }
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A file of src/ that nothing imports is dead code.',
      from: { orphan: true, path: '^src/', pathNot: '^src/(command/)?index\\.ts$' },
      to: {}
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default']
    }
  }
}
