import { afterEach, describe, expect, it, jest } from '@jest/globals'
import dns from 'node:dns'
import { describeProxy, httpGet, proxyFor, TransportError } from '../src/http-transport.js'

const api = new URL('https://console.neon.tech/api/v2/projects')

describe('proxyFor', () => {
  it('uses https_proxy, else HTTPS_PROXY, for https targets', () => {
    expect(proxyFor(api, { HTTPS_PROXY: 'http://proxy:3128' })?.host).toBe('proxy:3128')
    expect(
      proxyFor(api, { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' })?.host
    ).toBe('lower:1')
    expect(proxyFor(api, { HTTPS_PROXY: 'proxy.corp:8080' })?.href).toBe('http://proxy.corp:8080/')
    expect(proxyFor(api, {})).toBeUndefined()
  })

  it('never proxies loopback or plain http', () => {
    const env = { HTTPS_PROXY: 'http://proxy:3128' }
    for (const target of ['http://127.0.0.1:4010/x', 'https://localhost/x', 'http://[::1]:1/x']) {
      expect(proxyFor(new URL(target), env)).toBeUndefined()
    }
  })

  it.each([
    ['*', undefined],
    ['console.neon.tech', undefined],
    ['.neon.tech', undefined],
    ['neon.tech', undefined],
    ['*.neon.tech', undefined],
    ['console.neon.tech:443', undefined],
    ['console.neon.tech:8443', 'proxy:3128'],
    ['other.example, tech', undefined],
    ['other.example', 'proxy:3128'],
    ['eon.tech', 'proxy:3128']
  ])('NO_PROXY=%s', (noProxy, expected) => {
    expect(proxyFor(api, { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: noProxy })?.host).toBe(
      expected
    )
  })

  it('refuses a proxy it cannot use, without retrying', () => {
    expect(() => proxyFor(api, { HTTPS_PROXY: 'socks5://proxy:1080' })).toThrow(TransportError)
    expect(() => proxyFor(api, { HTTPS_PROXY: 'http://[bad' })).toThrow('HTTPS_PROXY is not a URL')
  })

  it('describes a proxy without its credentials', () => {
    expect(describeProxy(new URL('http://user:secret@proxy.corp:3128'))).toBe('proxy.corp:3128')
    expect(describeProxy(new URL('https://proxy.corp'))).toBe('proxy.corp:443')
  })
})

describe('a host name that does not resolve', () => {
  afterEach(() => {
    jest.restoreAllMocks()
  })

  // node:net resolves through dns.lookup; answering for it here keeps the test off the network.
  const resolverSays = (code: string) =>
    jest.spyOn(dns, 'lookup').mockImplementation(((
      hostname: string,
      _options: unknown,
      callback: (error: NodeJS.ErrnoException) => void
    ) => {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ${code} ${hostname}`)
      error.code = code
      process.nextTick(callback, error)
    }) as unknown as typeof dns.lookup)

  const get = () =>
    httpGet(new URL('http://api.neon.test/api/v2/projects'), {
      headers: {},
      timeLimitMs: 5_000,
      maxBodyBytes: 1024,
      env: {}
    })

  it('ENOTFOUND is final: no retry can make the name resolve', async () => {
    const lookup = resolverSays('ENOTFOUND')
    const failure = await get().catch((error: unknown) => error)
    expect(lookup.mock.calls.map((call) => call[0])).toEqual(['api.neon.test'])
    expect(failure).toBeInstanceOf(TransportError)
    expect(failure).toMatchObject({ retryable: false, culprit: 'api_host' })
    expect((failure as TransportError).message).toContain('ENOTFOUND')
  })

  it('EAI_AGAIN (the resolver is down for now) is retried', async () => {
    resolverSays('EAI_AGAIN')
    await expect(get()).rejects.toMatchObject({ retryable: true, culprit: 'api_host' })
  })
})
