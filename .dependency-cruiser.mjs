/*
 * The layers of src/, one direction: domain → api → wait → report → runner (each may import those
 * before it, never those after). Only the runner touches the runner's toolkit and GitHub.
 * `npm run lint` runs it; docs/development.md draws the same graph (npm run graph).
 */
const LATER = {
  domain: 'api|wait|report|runner',
  api: 'wait|report|runner',
  wait: 'report|runner',
  report: 'runner'
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
        'Only the runner layer talks to the runner (@actions/core) and GitHub (@actions/github).',
      from: { path: '^src/(domain|api|wait|report)/' },
      to: { path: '@actions/(core|github)' }
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A file of src/ that nothing imports is dead code.',
      from: { orphan: true, path: '^src/', pathNot: '^src/index\\.ts$' },
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
