/*
 * @actions/github's Octokit, loaded only when a run talks to GitHub (it is most of the bundle's
 * start-up), with the toolkit's request defaults (proxies honoured) and the run's abort signal.
 */
import type { getOctokit } from '@actions/github'

export type Octokit = ReturnType<typeof getOctokit>

export interface OctokitOptions {
  token: string
  apiUrl: string
  signal: AbortSignal
  /** Another fetch (tests); @actions/github's, which honours proxies, by default. */
  fetch?: typeof globalThis.fetch
}

export async function octokitFor(options: OctokitOptions): Promise<Octokit> {
  const [github, { defaults }] = await Promise.all([
    import('@actions/github'),
    import('@actions/github/lib/utils')
  ])
  return github.getOctokit(options.token, {
    baseUrl: options.apiUrl,
    request: {
      ...defaults.request,
      signal: options.signal,
      ...(options.fetch ? { fetch: options.fetch } : {})
    }
  })
}
