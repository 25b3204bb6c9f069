/*
 * octokitFor: the Octokit a run talks to GitHub with, its requests through the fetch it is given
 * (a stand-in here, answering as GitHub would), with the run's token and abort signal.
 */
import { describe, expect, it } from '@jest/globals'
import { octokitFor } from '../src/runner/octokit.js'

/** A port fetch refuses (discard): a request that misses the given fetch fails, sending nothing. */
const API_URL = 'http://127.0.0.1:9/api/v3'

describe('octokitFor', () => {
  it("sends each request through the given fetch, with the run's token and abort signal", async () => {
    const requests: { url: string; init: RequestInit }[] = []
    const fetch = async (url: string | URL | Request, init: RequestInit = {}) => {
      requests.push({ url: String(url), init })
      return Response.json({ login: 'octocat', type: 'User' })
    }
    const { signal } = new AbortController()
    const octokit = await octokitFor({ token: 'ghs_octokit_test', apiUrl: API_URL, signal, fetch })
    const { data } = await octokit.rest.users.getAuthenticated()
    expect(data.login).toBe('octocat')
    expect(requests).toEqual([
      { url: `${API_URL}/user`, init: expect.objectContaining({ method: 'GET', signal }) }
    ])
    expect(requests[0].init.headers).toMatchObject({ authorization: 'token ghs_octokit_test' })
  })
})
