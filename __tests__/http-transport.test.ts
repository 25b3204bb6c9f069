import { afterEach, describe, expect, it, jest } from '@jest/globals'
import dns from 'node:dns'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { MAX_BODY_BYTES } from '../src/api/api-core.js'
import { httpGet } from '../src/api/http-transport.js'
import { describeProxy, proxyFor } from '../src/api/proxy-tunnel.js'
import { TransportError } from '../src/api/transport-error.js'
import { type LocalServer, startLocalServer } from './support/listen.js'

const api = new URL('https://console.neon.tech/api/v2/projects')

const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY']

/** proxyFor with exactly these proxy variables set (the toolkit reads process.env itself). */
function proxyWith(target: URL, env: Record<string, string>): URL | undefined {
  const saved = PROXY_VARIABLES.map((name) => [name, process.env[name]] as const)
  for (const name of PROXY_VARIABLES) delete process.env[name]
  Object.assign(process.env, env)
  try {
    return proxyFor(target)
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

describe('proxyFor (the rules of @actions/http-client)', () => {
  it('uses https_proxy, else HTTPS_PROXY, for https targets', () => {
    expect(proxyWith(api, { HTTPS_PROXY: 'http://proxy:3128' })?.host).toBe('proxy:3128')
    expect(
      proxyWith(api, { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' })?.host
    ).toBe('lower:1')
    expect(proxyWith(api, { HTTPS_PROXY: '10.1.2.3:8080' })?.href).toBe('http://10.1.2.3:8080/')
    expect(proxyWith(api, {})).toBeUndefined()
  })

  it('never proxies loopback or plain http', () => {
    const env = { HTTPS_PROXY: 'http://proxy:3128' }
    for (const target of ['http://127.0.0.1:4010/x', 'https://localhost/x', 'http://[::1]:1/x']) {
      expect(proxyWith(new URL(target), env)).toBeUndefined()
    }
  })

  it.each([
    ['*', undefined],
    ['console.neon.tech', undefined],
    ['.neon.tech', undefined],
    ['neon.tech', undefined],
    ['console.neon.tech:443', undefined],
    ['console.neon.tech:8443', 'proxy:3128'],
    ['other.example, tech', undefined],
    ['other.example', 'proxy:3128'],
    ['eon.tech', 'proxy:3128']
  ])('NO_PROXY=%s', (noProxy, expected) => {
    expect(proxyWith(api, { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: noProxy })?.host).toBe(
      expected
    )
  })

  it('decodes the credentials', () => {
    const proxy = proxyWith(api, { HTTPS_PROXY: 'http://us%40er:p%25ss@proxy:3128' })
    expect([proxy?.username, proxy?.password]).toEqual(['us@er', 'p%ss'])
  })

  it('refuses a proxy it cannot use, naming HTTPS_PROXY and never its value', () => {
    expect(() => proxyWith(api, { HTTPS_PROXY: 'socks5://proxy:1080' })).toThrow(
      'HTTPS_PROXY must start with http:// or https://'
    )
    for (const setting of ['http://[bad', 'http://user:100%secret@proxy:3128']) {
      let failure: unknown
      try {
        proxyWith(api, { HTTPS_PROXY: setting })
      } catch (error) {
        failure = error
      }
      expect(failure).toBeInstanceOf(TransportError)
      expect(failure).toMatchObject({ retryable: false, culprit: 'HTTPS_PROXY' })
      expect((failure as Error).message).toContain('HTTPS_PROXY cannot be read')
      expect((failure as Error).message).not.toContain('secret')
    }
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
      maxBodyBytes: 1024
    })

  it('ENOTFOUND is a name that did not resolve: retried, for a while (the request core decides how long)', async () => {
    const lookup = resolverSays('ENOTFOUND')
    const failure = await get().catch((error: unknown) => error)
    expect(lookup.mock.calls.map((call) => call[0])).toEqual(['api.neon.test'])
    expect(failure).toBeInstanceOf(TransportError)
    expect(failure).toMatchObject({ retryable: true, unresolved: true, culprit: 'api_host' })
    expect((failure as TransportError).message).toContain('ENOTFOUND')
  })

  it('EAI_AGAIN (the resolver is down for now) is the same', async () => {
    resolverSays('EAI_AGAIN')
    await expect(get()).rejects.toMatchObject({
      retryable: true,
      unresolved: true,
      culprit: 'api_host'
    })
  })

  it('a refused connection is retried without limit of its own: the name did resolve', async () => {
    resolverSays('ECONNREFUSED')
    await expect(get()).rejects.toMatchObject({ retryable: true, unresolved: false })
  })
})

describe('bodies, over real HTTP on 127.0.0.1', () => {
  const servers: LocalServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })

  async function get(handler: Parameters<typeof startLocalServer>[0]) {
    const server = await startLocalServer(handler)
    servers.push(server)
    return httpGet(new URL(`${server.url}/api/v2/projects`), {
      headers: {},
      timeLimitMs: 10_000,
      maxBodyBytes: MAX_BODY_BYTES
    })
  }

  it('a declared Content-Length over the cap fails before reading, as the API’s fault', async () => {
    const failure = await get((_request, response) => {
      response.writeHead(200, { 'content-length': String(500 * 1024 * 1024) })
      response.write('{')
    }).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(TransportError)
    expect(failure).toMatchObject({ retryable: false, culprit: 'the API' })
    expect((failure as TransportError).message).toBe(
      'the answer is larger than 8 MiB; stopped reading'
    )
  })

  it.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync]
  ] as const)('a %s answer is asked for and decoded', async (encoding, compress) => {
    let asked = ''
    const answer = await get((request, response) => {
      asked = String(request.headers['accept-encoding'])
      response.writeHead(200, { 'content-encoding': encoding })
      response.end(compress(JSON.stringify({ projects: [] })))
    })
    expect(asked).toContain(encoding)
    expect(JSON.parse(answer.body)).toEqual({ projects: [] })
  })

  it('the cap counts decoded bytes: a small gzip bomb is refused', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '))
    expect(bomb.length).toBeLessThan(1024 * 1024)
    const failure = await get((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' })
      response.end(bomb)
    }).catch((error: unknown) => error)
    expect((failure as TransportError).message).toBe(
      'the answer is larger than 8 MiB; stopped reading'
    )
  })
})
