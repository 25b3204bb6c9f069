#!/usr/bin/env node
import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";
/******/ var __webpack_modules__ = ({

/***/ 1585:
/***/ ((module, __unused_webpack___webpack_exports__, __nccwpck_require__) => {

__nccwpck_require__.a(module, async (__webpack_handle_async_dependencies__, __webpack_async_result__) => { try {
/* harmony import */ var _domain_clock_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(6781);
/* harmony import */ var _main_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(1979);


// A reader that went away (`| head`) or a full disk is no reason for a stack trace: runCommand hears
// a failed write of the result through its callback (exit 2, but for EPIPE: the reader had enough).
const lost = () => undefined;
process.stdout.on('error', lost);
process.stderr.on('error', lost);
/**
 * Resolves once what was written to `stream` before has been handed over. A write to a pipe is
 * asynchronous in Node: a pipe holds 64 KiB, the rest waits in the stream's queue, and
 * process.exit() throws that queue away. An empty write's callback comes after every write before
 * it (or with the error of a reader that went away).
 */
const handedOver = (stream) => new Promise((resolve) => {
    if (stream.destroyed || stream.writableEnded)
        resolve();
    else
        stream.write('', () => resolve());
});
process.exitCode = await (0,_main_js__WEBPACK_IMPORTED_MODULE_1__/* .runCommand */ .d)(process.argv.slice(2), {
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    signals: process,
    clock: _domain_clock_js__WEBPACK_IMPORTED_MODULE_0__/* .systemClock */ .ml
});
await Promise.all([handedOver(process.stdout), handedOver(process.stderr)]);
// The result is out. A request cut short by a signal, or a pipe nobody wrote to, may still hold
// the event loop: whoever waits for the command wants it gone now. (A reader that takes nothing
// holds the command, as it holds any program that writes to it; a signal still ends it, since
// runCommand no longer listens for one.)
process.exit();

__webpack_async_result__();
} catch(e) { __webpack_async_result__(e); } }, 1);

/***/ }),

/***/ 1979:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  d: () => (/* binding */ runCommand)
});

;// CONCATENATED MODULE: ./src/domain/duration.ts
const UNIT_MS = {
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
    d: 86_400_000
};
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/;
/** Parses `5`, `500ms`, `5s`, `1.5m`, `1h`, `5d` into milliseconds; a bare number is seconds. */
function parseDuration(text) {
    const match = DURATION.exec(text.trim().toLowerCase());
    if (!match)
        return undefined;
    return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's']);
}
/** Human-readable duration for logs and the summary: `850 ms`, `12.3 s`, `4 min 05 s`. */
function formatDuration(ms) {
    if (ms < 1000)
        return `${Math.round(ms)} ms`;
    if (ms < 60_000)
        return `${(ms / 1000).toFixed(1)} s`;
    const totalSeconds = Math.round(ms / 1000);
    const minutes = Math.floor(totalSeconds / 60);
    const seconds = totalSeconds % 60;
    if (minutes < 60)
        return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
    return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

;// CONCATENATED MODULE: ./src/domain/input-naming.ts
/** The contract's names, as action.yml spells them: the action's naming, and every message's default. */
const CONTRACT_NAMING = {
    label: (name) => `input "${name}"`,
    mention: (name) => name,
    enabled: (name) => `${name}: true`
};

;// CONCATENATED MODULE: ./src/domain/errors.ts


/**
 * An error whose message names inputs (`api_key`, `api_host`): as the contract does in its message,
 * and as a front end does in `worded` (the command's `NEON_API_KEY`, `--api-host`).
 */
class WordedError extends Error {
    name = 'WordedError';
    words;
    constructor(words) {
        const wordsFor = typeof words === 'string' ? () => words : words;
        super(wordsFor(CONTRACT_NAMING));
        this.words = wordsFor;
    }
    worded(naming) {
        return this.words(naming);
    }
}
/**
 * A bad input: found before any request, or by one (a branch that does not exist). Its message names
 * inputs as the contract does; `worded` names them as a front end does.
 */
class InputError extends WordedError {
    name = 'InputError';
}
/** An HTTP error answer of the API. */
class ApiError extends WordedError {
    name = 'ApiError';
    status;
    endpoint;
    code;
    apiMessage;
    requestId;
    retryAfter;
    constructor(details) {
        super((naming) => describeApiError(details, naming));
        this.status = details.status;
        this.endpoint = details.endpoint;
        this.code = details.code;
        this.apiMessage = details.apiMessage;
        this.requestId = details.requestId;
        this.retryAfter = details.retryAfter;
    }
}
function describeApiError(details, { mention }) {
    const { status, endpoint, subject } = details;
    let text;
    if (status === 401) {
        text = `The API rejected the key (HTTP 401 on ${endpoint}): ${mention('api_key')} is missing, invalid or revoked`;
    }
    else if (status === 403) {
        text = `The key has no access to ${subject} (HTTP 403 on ${endpoint}); a project-scoped key reaches only its own project`;
    }
    else if (status === 404) {
        text = `${capitalize(subject)} was not found (HTTP 404 on ${endpoint})`;
    }
    else if (status >= 300 && status <= 399) {
        const target = details.location ? ` to ${details.location}` : '';
        const host = mention('api_host');
        text = `${endpoint} answered with a redirect (HTTP ${status}${target}), which was not followed: the API never redirects and the key goes only to ${host}; check ${host}`;
    }
    else {
        text = `${endpoint} failed with HTTP ${status}`;
    }
    const extras = [
        details.apiMessage ? `API says: "${details.apiMessage}"` : undefined,
        details.code ? `code ${details.code}` : undefined,
        details.requestId ? `request id ${details.requestId}` : undefined
    ].filter((part) => part !== undefined);
    return extras.length > 0 ? `${text}. ${extras.join('; ')}` : text;
}
function capitalize(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
}
/** No answer: connection refused or reset, DNS failure, per-request time limit. */
class NetworkError extends Error {
    endpoint;
    detail;
    name = 'NetworkError';
    constructor(endpoint, detail) {
        super(`${endpoint} got no answer: ${detail}`);
        this.endpoint = endpoint;
        this.detail = detail;
    }
}
/**
 * A 2xx answer whose body is not JSON at all (a proxy's or a gateway's HTML page, a body cut
 * short): no answer of the API's, retried as a request that got none.
 */
class NotJsonError extends NetworkError {
    name = 'NotJsonError';
    constructor(endpoint, detail) {
        super(endpoint, detail);
        this.message = `${endpoint} answered with a body that is not JSON: ${detail}`;
    }
}
/**
 * A request that no retry can help: api_host's name does not resolve, its certificate does not
 * match, the proxy refuses us, or the answer is over the size cap. Fails the step at once.
 */
class UnrecoverableRequestError extends WordedError {
    name = 'UnrecoverableRequestError';
    constructor(endpoint, detail, culprit) {
        super(({ mention }) => {
            const check = culprit === 'the API'
                ? ''
                : culprit === 'HTTPS_PROXY'
                    ? '; no retry can fix that: check HTTPS_PROXY and NO_PROXY'
                    : `; no retry can fix that: check ${mention('api_host')}`;
            return `${endpoint} failed: ${detail}${check}`;
        });
    }
}
/** A 2xx answer whose body is not what the action needs. */
class ResponseFormatError extends Error {
    endpoint;
    name = 'ResponseFormatError';
    constructor(endpoint, detail) {
        super(`Unexpected response from ${endpoint}: ${detail}`);
        this.endpoint = endpoint;
    }
}
/**
 * The overall `timeout` ran out while a request was still being retried, or no retry fits in the
 * time left before it (a Retry-After, or a back-off, longer than what is left): then
 * `noRetryFits` says so with the numbers, and nobody may say that the timeout ran out.
 */
class DeadlineExceededError extends Error {
    lastError;
    name = 'DeadlineExceededError';
    /** Why the retry did not fit, with the numbers, when time was still left; else undefined. */
    noRetryFits;
    constructor(lastError, retry) {
        const noRetryFits = retry && retry.leftMs > 0
            ? `no retry fits before the deadline: the retry after ${retry.reason} would wait ${formatDuration(retry.delayMs)}, with ${formatDuration(retry.leftMs)} of the timeout left`
            : undefined;
        const last = lastError ? `last error: ${lastError.message}` : undefined;
        super([noRetryFits, last].filter(Boolean).join('; ') ||
            'the deadline passed before the next request');
        this.lastError = lastError;
        this.noRetryFits = noRetryFits;
    }
}
/** The runner cancelled the job (SIGINT/SIGTERM). */
class CancelledError extends Error {
    name = 'CancelledError';
    constructor(signalName) {
        super(`Cancelled by ${signalName}`);
    }
}

;// CONCATENATED MODULE: ./src/domain/untrusted-text.ts
/*
 * Everything the server sends is untrusted. This module is the one place that makes such text safe
 * for each sink: the log (workflow commands, ANSI escapes, direction marks), the job summary (HTML
 * inside Markdown) and the size limits of every sink. Secrets are redacted first, in every encoding
 * they could travel in, before any escaping.
 */
const REDACTED = '***';
/** The longest secret that is also matched in every percent-encoding (percentPattern). */
const MAX_PATTERN_CHARS = 1024;
/** A secret at least this long is hidden in any letter case as well. */
const MIN_CASELESS_CHARS = 12;
/** Hides secrets in any text, in the forms an escaper or encoder could have turned them into. */
class Redactor {
    forms = [];
    patterns = [];
    constructor(secrets = []) {
        for (const secret of secrets)
            this.add(secret);
    }
    add(secret) {
        if (!secret)
            return;
        // V8 cannot compile the pattern of a secret of some thousands of characters (a stack overflow
        // at the first redaction); one that long is no key, and keeps its other forms.
        if (secret.length >= 4 && secret.length <= MAX_PATTERN_CHARS) {
            this.patterns.push({ length: secret.length, pattern: percentPattern(secret) });
            // In any letter case too, once a secret is long enough that no word of ours is one: a key
            // echoed in upper case is the key.
            if (secret.length >= MIN_CASELESS_CHARS) {
                this.patterns.push({ length: secret.length, pattern: percentPattern(secret, 'gi') });
            }
            // A secret that holds another is hidden whole first.
            this.patterns.sort((a, b) => b.length - a.length);
        }
        const candidates = [
            secret,
            JSON.stringify(secret).slice(1, -1),
            escapeHtmlEntities(secret),
            Buffer.from(secret).toString('hex'),
            Buffer.from(secret).toString('hex').toUpperCase(),
            ...htmlEntityForms(secret),
            ...[secret, `Bearer ${secret}`, `Authorization: Bearer ${secret}`].flatMap(base64Forms)
        ];
        this.forms = [...new Set([...this.forms, ...candidates])]
            .filter((form) => form.length >= 4)
            .sort((a, b) => b.length - a.length);
    }
    redact(text) {
        let result = text;
        for (const { pattern } of this.patterns)
            result = result.replace(pattern, REDACTED);
        // Most text holds no form: a look copies nothing, where a split and join copies the text.
        for (const form of this.forms) {
            if (result.includes(form))
                result = result.split(form).join(REDACTED);
        }
        return result;
    }
    /** Redacts every string inside parsed JSON (keys included), before anything else reads it. */
    redactJson(value) {
        if (typeof value === 'string')
            return this.redact(value);
        if (Array.isArray(value))
            return value.map((item) => this.redactJson(item));
        if (value !== null && typeof value === 'object') {
            return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.redact(key), this.redactJson(item)]));
        }
        return value;
    }
}
/**
 * The secret as the common HTML escapers write it: `&quot;` or `&#34;` or `&#x22;`, `&#39;` or
 * `&#x27;` or `&apos;`, `&amp;`, `&lt;`, `&gt;`, and the same with `@` left as it is.
 */
function htmlEntityForms(secret) {
    const styles = [
        { '"': '&quot;', "'": '&#39;' },
        { '"': '&quot;', "'": '&#x27;' },
        { '"': '&#34;', "'": '&#39;' },
        { '"': '&#x22;', "'": '&#x27;' },
        { '"': '&quot;', "'": '&apos;' }
    ];
    const common = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
    return styles.map((style) => secret.replace(/[&<>"']/g, (character) => style[character] ?? common[character]));
}
/**
 * Every percent-encoding of the secret at once: each character as it is or as its UTF-8 bytes in
 * `%XX` escapes with hex digits of either case, a space also as `+`. That covers
 * `encodeURIComponent`, `encodeURI`, RFC 3986 escapers (`!'()*` too), form encoding and lower-case
 * escapers, and any mix of them.
 */
function percentPattern(secret, flags = 'g') {
    const characters = [...secret].map((character) => {
        const escapes = [...Buffer.from(character)]
            .map((byte) => {
            const hex = byte.toString(16).padStart(2, '0');
            return `%[${hex[0]}${hex[0].toUpperCase()}][${hex[1]}${hex[1].toUpperCase()}]`;
        })
            .join('');
        const literal = character.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
        return `(?:${literal}|${escapes}${character === ' ' ? '|\\+' : ''})`;
    });
    return new RegExp(characters.join(''), flags);
}
/**
 * The base64 and base64url text of `secret` wherever it stands in an encoded stream: base64 encodes
 * 3 bytes at a time, so a secret after 1 or 2 other bytes (`Bearer ` is 7) comes out as other
 * characters. For each of the three alignments, the characters that encode only the secret's own
 * bytes; at most 2 bytes at either end stay visible, never enough to use the key.
 */
function base64Forms(secret) {
    const bytes = Buffer.from(secret);
    const forms = [];
    for (const skip of [0, 1, 2]) {
        const aligned = bytes.subarray(skip);
        const whole = aligned.subarray(0, aligned.length - (aligned.length % 3));
        forms.push(whole.toString('base64'), whole.toString('base64url'));
    }
    // Encoded alone, with its padding.
    forms.push(bytes.toString('base64'), bytes.toString('base64url'));
    return forms;
}
/** Cuts text to `maxChars`, saying visibly how much was cut. */
function truncate(text, maxChars) {
    if (text.length <= maxChars)
        return text;
    let end = maxChars;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff)
        end--; // never split a surrogate pair
    return `${text.slice(0, end)}… [${text.length - end} more characters]`;
}
/** What ends text that truncateBytes cut. */
const CUT_MARKER = '… [cut]';
/** Cuts text to at most `maxBytes` of UTF-8, never inside a character, with a visible marker. */
function truncateBytes(text, maxBytes) {
    if (Buffer.byteLength(text) <= maxBytes)
        return text;
    const kept = Buffer.from(text)
        .subarray(0, Math.max(0, maxBytes - Buffer.byteLength(CUT_MARKER)))
        .toString('utf8')
        .replace(/\uFFFD$/, '');
    return kept + CUT_MARKER;
}
/**
 * Control characters (C0, C1, DEL), the line and paragraph separators, and every Unicode format
 * character (category Cf): the bidirectional marks that make text read differently from what it is,
 * zero-width characters, the word joiner, the BOM and the tag characters (U+E0000–E007F), which let
 * `finished\u2060` look like `finished`. The body of a RegExp character class, which input rules
 * use to refuse what the log would escape.
 */
const UNSAFE_CHARACTER_CLASS = '\\p{Cc}\\p{Cf}\\u2028\\u2029';
const UNSAFE_CHARACTERS = new RegExp(`[${UNSAFE_CHARACTER_CLASS}]`, 'gu');
const NAMED_ESCAPES = new Map([
    ['\n', '\\n'],
    ['\r', '\\r'],
    ['\t', '\\t']
]);
function visibleEscape(character) {
    const code = character.codePointAt(0);
    return (NAMED_ESCAPES.get(character) ??
        (code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`));
}
/** Longest log line the action writes; API text beyond it is cut with a marker. */
const MAX_LOG_CHARS = 4000;
/**
 * The runner's older command syntax, `##[name key=value;]data`, runs wherever `##[` stands in a
 * line (actions/runner looks for it with IndexOf, on every line the `::` syntax did not claim).
 */
const LEGACY_COMMAND = /##\[/g;
/** `##[` shown as `##\u005b`: what remains has no `[` after `##`, and no replacement adds one. */
const LEGACY_COMMAND_ESCAPE = '##\\u005b';
/**
 * For a line of the job log: no new line, carriage return or other control character survives
 * (each becomes a visible escape such as `\n`), so API text can never start a line of its own and
 * be read by the runner as a workflow command (`::set-output`, `::add-mask::`, `::stop-commands::`);
 * and no `##[` survives anywhere in the line, so it cannot be read as one in the older syntax
 * (`##[set-output name=outcome;]success`) either.
 */
function forLog(text) {
    return truncate(text, MAX_LOG_CHARS)
        .replace(UNSAFE_CHARACTERS, visibleEscape)
        .replace(LEGACY_COMMAND, LEGACY_COMMAND_ESCAPE);
}
/**
 * A line that the runner would read as a workflow command (`::name::`) once it has trimmed the
 * white space before it, Unicode's included (no-break, ideographic and other spaces).
 */
const COMMAND_LINE = /^([^\S\n]*):/gm;
/**
 * For text of many lines that we put together from lines made with forLog (the command's report on
 * standard output, which a GitHub Actions step shows as its log): a line that API text begins, or
 * that only white space stands before, cannot start with `::` either; its first `:` is shown
 * escaped.
 */
function untrusted_text_forLogLines(text) {
    return text.replace(COMMAND_LINE, (match, spaces, offset) => text.startsWith('::', offset + spaces.length) ? `${spaces}\\u003a` : match);
}
/**
 * `value` as JSON on one line that a terminal or a CI log shows as it is: every control or format
 * character (JSON.stringify leaves DEL, C1 and Cf as they are) and every `##[` written as a `\u`
 * escape, which JSON reads back as the same value.
 */
function forJsonLine(value) {
    const escape = (text) => [...Array(text.length).keys()]
        .map((index) => `\\u${text.charCodeAt(index).toString(16).padStart(4, '0')}`)
        .join('');
    return JSON.stringify(value)
        .replace(UNSAFE_CHARACTERS, escape)
        .replace(LEGACY_COMMAND, `##${escape('[')}`);
}
function escapeHtmlEntities(text) {
    return text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;')
        .replace(/@/g, '&#64;');
}
/**
 * For the job summary and the pull-request comment, which are HTML inside Markdown: entities escaped
 * (`@` too, so API text cannot mention and notify people in a comment), and every line break
 * (`\n`, a lone `\r`, U+2028) and control character removed, because a line break could end the
 * HTML block and let the rest be read as Markdown (a heading, a link, an image).
 */
function forHtml(text, maxChars) {
    return escapeHtmlEntities(truncate(text, maxChars)).replace(UNSAFE_CHARACTERS, ' ');
}

;// CONCATENATED MODULE: external "node:http"
const external_node_http_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:http");
;// CONCATENATED MODULE: external "node:https"
const external_node_https_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:https");
;// CONCATENATED MODULE: external "node:net"
const external_node_net_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:net");
;// CONCATENATED MODULE: external "node:tls"
const external_node_tls_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:tls");
;// CONCATENATED MODULE: external "node:zlib"
const external_node_zlib_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:zlib");
;// CONCATENATED MODULE: ./node_modules/@actions/http-client/lib/proxy.js
function getProxyUrl(reqUrl) {
    const usingSsl = reqUrl.protocol === 'https:';
    if (checkBypass(reqUrl)) {
        return undefined;
    }
    const proxyVar = (() => {
        if (usingSsl) {
            return process.env['https_proxy'] || process.env['HTTPS_PROXY'];
        }
        else {
            return process.env['http_proxy'] || process.env['HTTP_PROXY'];
        }
    })();
    if (proxyVar) {
        try {
            return new DecodedURL(proxyVar);
        }
        catch (_a) {
            if (!proxyVar.startsWith('http://') && !proxyVar.startsWith('https://'))
                return new DecodedURL(`http://${proxyVar}`);
        }
    }
    else {
        return undefined;
    }
}
function checkBypass(reqUrl) {
    if (!reqUrl.hostname) {
        return false;
    }
    const reqHost = reqUrl.hostname;
    if (isLoopbackAddress(reqHost)) {
        return true;
    }
    const noProxy = process.env['no_proxy'] || process.env['NO_PROXY'] || '';
    if (!noProxy) {
        return false;
    }
    // Determine the request port
    let reqPort;
    if (reqUrl.port) {
        reqPort = Number(reqUrl.port);
    }
    else if (reqUrl.protocol === 'http:') {
        reqPort = 80;
    }
    else if (reqUrl.protocol === 'https:') {
        reqPort = 443;
    }
    // Format the request hostname and hostname with port
    const upperReqHosts = [reqUrl.hostname.toUpperCase()];
    if (typeof reqPort === 'number') {
        upperReqHosts.push(`${upperReqHosts[0]}:${reqPort}`);
    }
    // Compare request host against noproxy
    for (const upperNoProxyItem of noProxy
        .split(',')
        .map(x => x.trim().toUpperCase())
        .filter(x => x)) {
        if (upperNoProxyItem === '*' ||
            upperReqHosts.some(x => x === upperNoProxyItem ||
                x.endsWith(`.${upperNoProxyItem}`) ||
                (upperNoProxyItem.startsWith('.') &&
                    x.endsWith(`${upperNoProxyItem}`)))) {
            return true;
        }
    }
    return false;
}
function isLoopbackAddress(host) {
    const hostLower = host.toLowerCase();
    return (hostLower === 'localhost' ||
        hostLower.startsWith('127.') ||
        hostLower.startsWith('[::1]') ||
        hostLower.startsWith('[0:0:0:0:0:0:0:1]'));
}
class DecodedURL extends URL {
    constructor(url, base) {
        super(url, base);
        this._decodedUsername = decodeURIComponent(super.username);
        this._decodedPassword = decodeURIComponent(super.password);
    }
    get username() {
        return this._decodedUsername;
    }
    get password() {
        return this._decodedPassword;
    }
}
//# sourceMappingURL=proxy.js.map
;// CONCATENATED MODULE: ./src/api/transport-error.ts
/*
 * What a request that got no usable answer failed of, for the transport and the proxy tunnel alike,
 * and what that is to the request (api-core.ts): an error to retry or one that ends it.
 */


/**
 * Why a request got no usable answer. `retryable: false` means that sending it again cannot help
 * (a certificate that does not match, a body over the cap, a proxy that refuses us); `culprit`
 * names what to check. `unresolved`: the host name did not resolve, which a runner's resolver does
 * now and then for a moment, so it is retried, but only for a while (host-resolution.ts).
 */
class TransportError extends Error {
    detail;
    retryable;
    culprit;
    unresolved;
    name = 'TransportError';
    constructor(detail, retryable, culprit = 'api_host', unresolved = false) {
        super(detail);
        this.detail = detail;
        this.retryable = retryable;
        this.culprit = culprit;
        this.unresolved = unresolved;
    }
}
/** What a resolver answers for a name it cannot resolve (now, or at all). */
const UNRESOLVED_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN']);
/** Error codes of node:net, node:tls and node:http that no retry can fix. */
const UNRECOVERABLE_CODES = new Set([
    'EAFNOSUPPORT',
    'EADDRNOTAVAIL',
    'ERR_INVALID_URL',
    'ERR_INVALID_CHAR',
    'ERR_INVALID_HTTP_TOKEN',
    'ERR_UNESCAPED_CHARACTERS',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'ERR_SSL_WRONG_VERSION_NUMBER',
    'EPROTO',
    'CERT_HAS_EXPIRED',
    'CERT_NOT_YET_VALID',
    'CERT_UNTRUSTED',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
]);
function tooLarge(maxBytes) {
    return new TransportError(`the answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB; stopped reading`, false, 'the API');
}
/** Duck-typed: errors of node:http may come from another realm (e.g. under a test VM). */
function classify(error) {
    const { code, message } = (error ?? {});
    const text = typeof message === 'string' ? message : String(error);
    const detail = typeof code === 'string' && !text.includes(code) ? `${code} (${text})` : text;
    const known = typeof code === 'string' ? code : '';
    return new TransportError(detail, !UNRECOVERABLE_CODES.has(known), 'api_host', UNRESOLVED_CODES.has(known));
}
/**
 * What a transport failure is to a request of `endpoint` (its `detail` redacted): a NetworkError,
 * which the retry policy retries, or an UnrecoverableRequestError naming what to check.
 */
function requestErrorOf(error, endpoint, detail, timeLimitMs) {
    if (error.retryable) {
        const timedOut = detail.startsWith('no answer within');
        return new NetworkError(endpoint, timedOut ? `no answer within ${formatDuration(timeLimitMs)}` : detail);
    }
    return new UnrecoverableRequestError(endpoint, detail, error.culprit);
}

;// CONCATENATED MODULE: ./src/api/proxy-tunnel.ts
/*
 * The HTTPS proxy: whether to use one and which is @actions/http-client's decision (its proxy
 * rules); the CONNECT tunnel is ours, because the toolkit's `tunnel` agent sends CONNECT with no
 * time limit, so a silent proxy would hold the step until the job times out.
 */




/**
 * The proxy for `target`, by the toolkit's rules (@actions/http-client): https_proxy before
 * HTTPS_PROXY, NO_PROXY with `*`, leading dots and ports, loopback never proxied, credentials
 * URL-decoded. Plain http goes only to loopback, which is never proxied.
 */
function proxyFor(target) {
    if (target.protocol !== 'https:' || checkBypass(target))
        return undefined;
    const setting = process.env.https_proxy || process.env.HTTPS_PROXY;
    if (!setting)
        return undefined;
    let proxy;
    try {
        proxy = getProxyUrl(target);
    }
    catch {
        proxy = undefined;
    }
    // The toolkit drops a proxy whose credentials are not valid percent-encoding (a bare `%`), and
    // throws on one that is not a URL: either way, say so rather than connect directly.
    if (!proxy) {
        throw new TransportError('HTTPS_PROXY cannot be read: it is not a URL, or its user name or password is not valid percent-encoding (write % as %25)', false, 'HTTPS_PROXY');
    }
    if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
        throw new TransportError('HTTPS_PROXY must start with http:// or https://; other proxies are not supported', false, 'HTTPS_PROXY');
    }
    return proxy;
}
/** The proxy as `host:port`, never with its credentials. */
function describeProxy(proxy) {
    return `${proxy.hostname}:${proxy.port || (proxy.protocol === 'https:' ? 443 : 80)}`;
}
/** The CONNECT request's headers: the target, and the proxy's credentials when it has some. */
function connectHeaders(proxy, authority) {
    const headers = { Host: authority };
    if (proxy.username || proxy.password) {
        // Already decoded by the toolkit's URL.
        const credentials = `${proxy.username}:${proxy.password}`;
        headers['Proxy-Authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    return headers;
}
/** CONNECT through the proxy; resolves with the raw tunnel socket to the target. */
function openTunnel(proxy, target, sockets, signal) {
    const authority = `${target.hostname}:${target.port || 443}`;
    const headers = connectHeaders(proxy, authority);
    const via = describeProxy(proxy);
    return new Promise((resolve, reject) => {
        const request = (proxy.protocol === 'https:' ? external_node_https_namespaceObject : external_node_http_namespaceObject).request({
            host: proxy.hostname.replace(/^\[|\]$/g, ''),
            port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
            method: 'CONNECT',
            path: authority,
            headers,
            agent: false,
            signal
        });
        request.on('socket', (socket) => sockets.add(socket));
        request.on('connect', (response, socket) => {
            sockets.add(socket);
            if (response.statusCode === 200)
                return resolve(socket);
            socket.destroy();
            const status = response.statusCode ?? 0;
            const retryable = status >= 500 || status === 429 || status === 408;
            reject(new TransportError(`the proxy ${via} (HTTPS_PROXY) answered CONNECT with HTTP ${status}`, retryable, 'HTTPS_PROXY'));
        });
        request.on('error', (error) => {
            const failure = classify(error);
            reject(new TransportError(`the proxy ${via} (HTTPS_PROXY): ${failure.detail}`, failure.retryable, 'HTTPS_PROXY', failure.unresolved));
        });
        request.end();
    });
}

;// CONCATENATED MODULE: ./src/api/http-transport.ts
/*
 * The one place where bytes leave the process: a single GET over node:http/https with a hard time
 * limit, an abort signal, a cap on the body, no redirects, and an HTTPS proxy tunnel (CONNECT).
 * Every socket a request opens, the tunnel's included, is destroyed when the request ends, however
 * it ends, so a silent server or proxy can never keep the process alive.
 *
 * Whether to use a proxy, and which, is @actions/http-client's decision (proxy-tunnel.ts). Carrying
 * the request is ours because its HttpClient cannot do what a gate needs: it has no abort signal and
 * no cap on the body, follows redirects (the key must go only to api_host), and its `tunnel` agent
 * sends CONNECT with no time limit, so a silent proxy would hold the step until the job times out.
 */







/**
 * One GET. Resolves with any HTTP status (redirects are returned, not followed); rejects with a
 * TransportError, or with `signal.reason` when the signal aborts.
 */
async function httpGet(url, options) {
    const controller = new AbortController();
    const sockets = new Set();
    const timer = setTimeout(() => controller.abort(new TransportError(`no answer within ${Math.round(options.timeLimitMs)} ms`, true)), options.timeLimitMs);
    const onOuterAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted)
        onOuterAbort();
    options.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const aborted = new Promise((_, reject) => {
        const fail = () => reject(controller.signal.reason);
        if (controller.signal.aborted)
            fail();
        controller.signal.addEventListener('abort', fail, { once: true });
    });
    aborted.catch(() => undefined);
    try {
        const exchange = async () => {
            const proxy = proxyFor(url);
            const tunnel = proxy ? await openTunnel(proxy, url, sockets, controller.signal) : undefined;
            return await exchangeOnce(url, options, tunnel, sockets, controller.signal);
        };
        return await Promise.race([exchange(), aborted]);
    }
    finally {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onOuterAbort);
        for (const socket of sockets)
            socket.destroy();
    }
}
function exchangeOnce(url, options, tunnel, sockets, signal) {
    return new Promise((resolve, reject) => {
        const secure = url.protocol === 'https:';
        const hostname = url.hostname.replace(/^\[|\]$/g, '');
        const request = (secure ? external_node_https_namespaceObject : external_node_http_namespaceObject).request(url, {
            method: 'GET',
            headers: { ...options.headers, 'Accept-Encoding': 'gzip, br', Connection: 'close' },
            signal,
            // A fresh connection each time, never a pooled one; through a proxy, TLS over the tunnel
            // (Node uses createConnection only when no agent is given).
            ...(tunnel
                ? {
                    // The certificate must name the API's host (name or IP), never the proxy's: without
                    // `host`, Node checks it against the tunnel socket's host, which is the proxy.
                    createConnection: () => external_node_tls_namespaceObject.connect({
                        socket: tunnel,
                        host: hostname,
                        servername: (0,external_node_net_namespaceObject.isIP)(hostname) ? undefined : hostname
                    })
                }
                : { agent: false })
        });
        request.on('socket', (socket) => sockets.add(socket));
        request.on('error', (error) => reject(classify(error)));
        request.on('response', (response) => {
            readAnswer(response, options.maxBodyBytes).then(resolve, reject);
        });
        request.end();
    });
}
/**
 * The answer's status, headers and body, read up to `maxBodyBytes` of decoded bytes (a small
 * compressed answer can unpack to a huge one).
 */
function readAnswer(response, maxBodyBytes) {
    return new Promise((resolve, reject) => {
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBodyBytes) {
            reject(tooLarge(maxBodyBytes));
            response.destroy();
            return;
        }
        const decoded = decoder(response.headers['content-encoding']);
        if (decoded === undefined) {
            const unreadable = 'the answer is in a content encoding the action cannot read';
            reject(new TransportError(unreadable, false, 'the API'));
            response.destroy();
            return;
        }
        const body = decoded ? response.pipe(decoded) : response;
        const chunks = [];
        let size = 0;
        body.on('data', (chunk) => {
            size += chunk.length;
            if (size > maxBodyBytes) {
                reject(tooLarge(maxBodyBytes));
                response.destroy();
                decoded?.destroy();
            }
            else {
                chunks.push(chunk);
            }
        });
        response.on('error', (error) => reject(classify(error)));
        decoded?.on('error', (error) => reject(new TransportError(`the compressed answer is corrupt (${error.message})`, true)));
        response.on('aborted', () => reject(new TransportError('the answer was cut off', true)));
        body.on('end', () => resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8')
        }));
    });
}
/**
 * The stream that decodes a Content-Encoding: null for none, undefined for one the action cannot
 * read. It asks for gzip or brotli (large listings shrink tenfold on the shared network), and
 * also reads deflate, which a server may send whatever was asked.
 */
function decoder(encoding) {
    switch ((encoding ?? '').trim().toLowerCase()) {
        case '':
        case 'identity':
            return null;
        case 'gzip':
        case 'x-gzip':
            return external_node_zlib_namespaceObject.createGunzip();
        case 'deflate':
            return external_node_zlib_namespaceObject.createInflate();
        case 'br':
            return external_node_zlib_namespaceObject.createBrotliDecompress();
        default:
            return undefined;
    }
}

;// CONCATENATED MODULE: ./src/api/retry-policy.ts

/** Statuses that say "try again later"; every request of the action is a GET, so retrying is safe. */
const RETRYABLE_STATUSES = new Set([408, 423, 429, 500, 502, 503, 504]);
/**
 * The recovery bound: no wait, a retry's or a poll's, is longer than this many intervals, unless a
 * Retry-After asks for longer (then at most one interval more than it asks). However long trouble
 * lasts, the request after it ends comes within this bound.
 */
const RECOVERY_INTERVALS = 3;
/**
 * The first retry goes out at most this many intervals after `max(Retry-After, interval)`, and at
 * least FIRST_RETRY_JITTER less: as late as that allows, never all at the same moment.
 */
const FIRST_RETRY_LATEST = 1;
const FIRST_RETRY_JITTER = 0.1;
/** Later retries, the gate's own consecutive failures, spread over this many intervals. */
const LATER_RETRY_INTERVALS = 2;
/** A request without an answer is cut after the recovery bound, but never this soon... */
const SHORTEST_REQUEST_LIMIT_MS = 10_000;
/** ...nor later than this. */
const LONGEST_REQUEST_LIMIT_MS = 30_000;
/**
 * How long one request may go without an answer: RECOVERY_INTERVALS intervals (15 s at the
 * default interval), so that a server that stops answering costs a gate no more than any other
 * trouble once it answers again; at least 10 s, so that a short interval does not cut a slow but
 * working answer (with `interval` under 3⅓ s the bound after time-outs is 10 s), and at most 30 s.
 */
function requestTimeLimitMs(intervalMs) {
    return Math.min(LONGEST_REQUEST_LIMIT_MS, Math.max(SHORTEST_REQUEST_LIMIT_MS, RECOVERY_INTERVALS * intervalMs));
}
/**
 * When to retry and how long to wait first. A wait after an answer (a 429, a 5xx) counts from the
 * answer; a wait after no answer (a reset, a time-out) counts from the start of the request, whose
 * time went by without a word from the server (so a request cut after 3 intervals is retried at
 * once). Each wait is measured from a floor: after a 429,
 * `max(Retry-After, interval)` (never sooner than the server says, never faster than polling); after
 * a 5xx, 408, 423, a reset or a time-out, the next poll's wait. The first retry goes out late in the
 * interval after its floor, the later ones (the gate's own consecutive failures) anywhere in the two
 * intervals after it; no wait is longer than RECOVERY_INTERVALS intervals, or one interval past a
 * longer Retry-After. So a lone gate is back within that bound once trouble ends, however long it
 * lasted, and the fleet's courtesy comes from the pace (src/api/pace.ts), which every 429 slows.
 *
 * Why late, and never exactly on the floor: a sliding window's Retry-After names when its first
 * slot frees, and every gate refused in the same crunch hears the same moment; the window frees
 * slots at the pace it admitted requests a window ago, so the later in the allowed interval the
 * refused gates come back, the more room they find (the discrete-event simulation,
 * `npm run simulate`, and docs/benchmarks.md have the numbers).
 */
class RetryPolicy {
    random;
    constructor(options = {}) {
        this.random = options.random ?? Math.random;
    }
    /**
     * The wait before retry number `attempt` (1 = first retry), from now, or undefined: do not retry.
     * `wallNow` (epoch ms) is what a Retry-After date is compared with; `spentMs`, how long a request
     * that got no answer went on, is counted as waited already.
     */
    decide(error, attempt, wallNow, pacing, spentMs = 0) {
        if (error instanceof NetworkError) {
            const delayMs = Math.max(0, this.backoff(attempt, pacing) - spentMs);
            const what = error instanceof NotJsonError ? 'a body that is not JSON' : 'no answer';
            return { delayMs, reason: `${what} (${error.detail})` };
        }
        if (!(error instanceof ApiError) || !RETRYABLE_STATUSES.has(error.status))
            return undefined;
        const retryAfterMs = parseRetryAfter(error.retryAfter, wallNow);
        const reason = retryAfterMs !== undefined
            ? `HTTP ${error.status}, Retry-After ${error.retryAfter}`
            : `HTTP ${error.status}`;
        const askedMs = retryAfterMs ?? 0;
        const fromMs = error.status === 429
            ? Math.max(pacing.minimumMs, askedMs)
            : Math.max(askedMs, this.nextPollFloor(pacing));
        const capMs = Math.max(RECOVERY_INTERVALS * pacing.minimumMs, askedMs + pacing.minimumMs);
        return { delayMs: this.spread(attempt, fromMs, pacing.minimumMs, capMs), reason };
    }
    /** A retry after an error other than a 429, without Retry-After, from the failed request's start. */
    backoff(attempt, pacing) {
        const capMs = RECOVERY_INTERVALS * pacing.minimumMs;
        return this.spread(attempt, this.nextPollFloor(pacing), pacing.minimumMs, capMs);
    }
    /** The next poll's wait, never under the minimum nor past the recovery bound. */
    nextPollFloor({ minimumMs, nextPollMs }) {
        return Math.max(minimumMs, Math.min(nextPollMs, RECOVERY_INTERVALS * minimumMs));
    }
    /**
     * After `fromMs`: on the first retry, late in the interval after it (its last tenth, at random);
     * on later ones, anywhere in the two intervals after it; never past `capMs`.
     */
    spread(attempt, fromMs, intervalMs, capMs) {
        const share = attempt === 1
            ? FIRST_RETRY_LATEST - FIRST_RETRY_JITTER * this.random()
            : LATER_RETRY_INTERVALS * this.random();
        return Math.round(Math.min(capMs, fromMs + share * intervalMs));
    }
}
/** Retry-After is either delay-seconds or an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(header, now) {
    if (header === undefined)
        return undefined;
    const text = header.trim();
    if (/^\d+(\.\d+)?$/.test(text))
        return Math.ceil(Number(text) * 1000);
    const date = Date.parse(text);
    return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
/**
 * Runs `attempt` until it succeeds, the policy says the error is final, or the next wait would end
 * past the deadline (then DeadlineExceededError, carrying the last error).
 */
async function withRetries(attempt, context) {
    for (let retry = 1;; retry++) {
        const startedAt = context.clock.now();
        try {
            return await attempt();
        }
        catch (error) {
            if (context.signal?.aborted)
                throw error;
            context.onFailure?.(error);
            const now = context.clock.now();
            const decision = context.policy.decide(error, retry, context.clock.wallNow(), context.pacing(), now - startedAt);
            if (decision === undefined)
                throw error;
            const lastError = error;
            const deadline = typeof context.deadline === 'number' ? context.deadline : context.deadline(error);
            if (now + decision.delayMs > deadline) {
                const { reason, delayMs } = decision;
                throw new DeadlineExceededError(lastError, { reason, delayMs, leftMs: deadline - now });
            }
            context.onRetry?.(decision, lastError, retry);
            await context.clock.sleep(decision.delayMs, context.signal);
        }
    }
}

// EXTERNAL MODULE: ./src/domain/clock.ts + 1 modules
var domain_clock = __nccwpck_require__(6781);
;// CONCATENATED MODULE: ./src/domain/version.ts
// Kept equal to package.json's version by a test.
const ACTION_NAME = 'neon-operations-gate';
const ACTION_VERSION = '0.1.0';

;// CONCATENATED MODULE: ./src/domain/loopback.ts
/**
 * The hosts a connection without TLS may go to: `localhost` (any case), an IPv4 literal inside
 * 127.0.0.0/8 written as four decimal octets of 0–255, or `[::1]`. Nothing else, and never a
 * name a resolver would look up: `127.1`, `0x7f.1`, `127.0.0.08`, `127.999.999.999` and
 * `localhost.` are names to a resolver (its search domains included), not loopback.
 */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const LOOPBACK = new RegExp(`^(?:localhost|127(?:\\.${OCTET}){3}|\\[::1\\])$`, 'i');
/** Whether `hostname` (as URL.hostname spells it, IPv6 in brackets) is a loopback host. */
function isLoopbackHost(hostname) {
    return LOOPBACK.test(hostname);
}

;// CONCATENATED MODULE: ./src/domain/phrase.ts

const MAX_CODE_CHARS = 80;
const MAX_QUOTE_CHARS = 300;
/** `1 operation`, `2 operations`: the noun follows the count. */
function plural(count, one, many = `${one}s`) {
    return `${count} ${count === 1 ? one : many}`;
}
/** A phrase with our words as they are and the API's text as `code` and `quote` make it. */
function render(phrase, code, quote) {
    return phrase
        .map((part) => typeof part === 'string' ? part : 'code' in part ? code(part.code) : quote(part.quote))
        .join('');
}
function phraseHtml(phrase) {
    return render(phrase, (text) => `<code>${forHtml(text, MAX_CODE_CHARS)}</code>`, (text) => `“${forHtml(text, MAX_QUOTE_CHARS)}”`);
}
function phraseText(phrase) {
    return render(phrase, (text) => truncate(text, MAX_CODE_CHARS), (text) => `"${truncate(text, MAX_QUOTE_CHARS)}"`);
}
/**
 * `init`, or `ready, then resetting` when a change of state is pending; `no current_state` when the
 * API states none (such a branch is waited on, as an unknown state is).
 */
function branchStatePhrase(branch) {
    return [
        branch.current_state == null ? 'no current_state' : { code: branch.current_state },
        ...(branch.pending_state ? [', then ', { code: branch.pending_state }] : [])
    ];
}
/** The phrase as the start of a sentence. */
function capitalized(phrase) {
    const [first, ...rest] = phrase;
    return typeof first === 'string'
        ? [first.charAt(0).toUpperCase() + first.slice(1), ...rest]
        : phrase;
}

;// CONCATENATED MODULE: ./src/steps/database/database-target.ts
/*
 * The database the gate ends on: where `database_url` points, what counts as an answer, and what
 * each way a connection or a query can fail means for a gate (retried, the role refused, or an
 * answer that no wait will change).
 */


const ACCEPTED = 'a Postgres connection string, postgresql://role:password@host/database';
/**
 * A variable that a shell, a CI system or a template left as text: at the start, where no URL has
 * a `$` or a `%` (`$DATABASE_URL`, `%DATABASE_URL%`, `$env:DATABASE_URL`, `{{ .Url }}`), or braced
 * anywhere (`${PGPASSWORD}`, `$(PGHOST)`, `${{ secrets.URL }}`, `$[[ inputs.url ]]`). A password's
 * own `$` followed by a word stands; its `${` is written `%24{`.
 */
const UNEXPANDED_VARIABLE = /^(?:\$|%\w+%|\{\{)|\$[{([]/u;
/**
 * The target of a connection string, or why it is not one (never repeating the string, which holds
 * a password). `sslmode=disable` is allowed only to a loopback host; every other mode, and none,
 * means TLS with the certificate verified.
 */
function parseDatabaseUrl(text) {
    if (UNEXPANDED_VARIABLE.test(text)) {
        return 'is a variable that was not expanded ($NAME, ${NAME}, $(NAME), %NAME% or an expression left as text), not a connection string; give the URL itself, or a variable the shell or the CI system expands (a $ in a password is written %24)';
    }
    let url;
    try {
        url = new URL(text);
    }
    catch {
        return `is not a URL; expected ${ACCEPTED}`;
    }
    if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
        return `is not a Postgres connection string (postgresql:// or postgres://); expected ${ACCEPTED}`;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!host)
        return `names no host; expected ${ACCEPTED}`;
    let user;
    let password;
    let database;
    try {
        user = decodeURIComponent(url.username);
        password = decodeURIComponent(url.password);
        database = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
    }
    catch {
        return `holds a % that is not percent-encoding (write % as %25); expected ${ACCEPTED}`;
    }
    if (!user)
        return `names no role; expected ${ACCEPTED}`;
    const sslmode = url.searchParams.get('sslmode');
    const tls = sslmode !== 'disable';
    if (!tls && !isLoopbackHost(url.hostname)) {
        return `sslmode=disable is allowed only to a loopback host (localhost, 127.x.x.x, [::1]); a connection to ${host} must use TLS`;
    }
    return { host, port: Number(url.port) || 5432, database, user, password, tls };
}
/** The secrets of a connection string: itself, and its password as written and decoded. */
function databaseSecrets(text) {
    const secrets = [text];
    try {
        const { password } = new URL(text);
        secrets.push(password, decodeURIComponent(password));
    }
    catch {
        // Not a URL: the input error says so, and the whole text is masked.
    }
    return secrets.filter(Boolean);
}
/**
 * What `SELECT 1` came back with when it is not one row holding 1 (as a number, or as the text
 * "1"); undefined when it is. Only that answer means the database is ready.
 */
function wrongAnswer({ results }) {
    if (results.length !== 1)
        return [plural(results.length, 'result set')];
    const [{ rows, command }] = results;
    if (rows.length === 0)
        return [command === null ? 'an empty query response' : 'no row'];
    if (rows.length > 1)
        return [plural(rows.length, 'row')];
    const [row] = rows;
    if (row.length !== 1)
        return [`a row of ${plural(row.length, 'value')}`];
    const [value] = row;
    if (value === 1 || value === '1')
        return undefined;
    if (value === null)
        return ['NULL'];
    return [{ quote: typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)) }];
}
/** Neon's proxy answers most of its own errors as XX000: its messages say what happened. */
const PROXY_MESSAGES = [
    [/couldn't connect to compute node/i, 'retry'],
    [/exceeded the compute time quota/i, 'stop'],
    [/endpoint id is not specified/i, 'stop'],
    [/endpoint (?:has been|is) disabled/i, 'stop']
];
/** Errors of the network: no Postgres answer at all; tried again, but for a name that is none. */
const NETWORK_CODES = {
    ECONNREFUSED: 'retry',
    ECONNRESET: 'retry',
    ETIMEDOUT: 'retry',
    EPIPE: 'retry',
    EHOSTUNREACH: 'retry',
    ENETUNREACH: 'retry',
    EAI_AGAIN: 'retry',
    ENOTFOUND: 'stop'
};
/** Messages of the driver for a connection that ended before Postgres answered. */
const CLOSED_EARLY = /connection terminated|timeout expired|connection timeout|no answer within/i;
/**
 * What a failed attempt means, decided by SQLSTATE and error class (docs/troubleshooting.md has the
 * table): retried within `timeout`, the role or password retried for a grace, or a failure at once.
 */
function classifyDatabaseError(error) {
    const code = typeof error.code === 'string' ? error.code : undefined;
    const message = typeof error.message === 'string' ? error.message : String(error);
    const proxy = PROXY_MESSAGES.find(([pattern]) => pattern.test(message));
    if (proxy)
        return { state: proxy[1] === 'retry' ? 'unreachable' : 'error', retry: proxy[1], code, message };
    if (code === '28P01' || code === '28000')
        return { state: 'refused', retry: 'grace', code, message };
    if (code && /^[0-9A-Z]{5}$/.test(code)) {
        const busy = code === '57P03' || code === '53300' || code.startsWith('08');
        return { state: 'error', retry: busy ? 'retry' : 'stop', code, message };
    }
    if (code && code in NETWORK_CODES) {
        return { state: 'unreachable', retry: NETWORK_CODES[code], code, message };
    }
    if (!code && CLOSED_EARLY.test(message))
        return { state: 'unreachable', retry: 'retry', message };
    // TLS refused or a certificate that does not match: no wait changes that.
    return { state: 'error', retry: 'stop', code, message };
}

;// CONCATENATED MODULE: ./src/steps/database/postgres.ts
/** Resolves with what `SELECT 1` answered; rejects with the driver's error or `signal.reason`. */
async function queryDatabase(target, signal) {
    const { default: pg } = await __nccwpck_require__.e(/* import() */ 849).then(__nccwpck_require__.bind(__nccwpck_require__, 3849));
    signal.throwIfAborted();
    const client = new pg.Client({
        host: target.host,
        port: target.port,
        user: target.user,
        password: target.password,
        database: target.database,
        // Set here, never from the URL: TLS with the certificate verified against the host; pg sends
        // the host name as SNI, which Neon's proxy needs to find the endpoint.
        ssl: target.tls ? { rejectUnauthorized: true } : false,
        application_name: 'neon-operations-gate'
    });
    const connection = client
        .connection;
    // The version comes with the start-up, so reading it can neither fail nor delay the verdict.
    let serverVersion;
    connection.on('parameterStatus', (status) => {
        if (status.parameterName === 'server_version')
            serverVersion = status.parameterValue;
    });
    // An error after the connection broke surfaces through the pending call; this keeps it quiet.
    client.on('error', ignore);
    const aborted = new Promise((_, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    aborted.catch(ignore);
    try {
        await Promise.race([client.connect(), aborted]);
        const result = await Promise.race([
            client.query({ text: 'SELECT 1', rowMode: 'array' }),
            aborted
        ]);
        // Several statements' answers come as an array of results.
        const results = [].concat(result);
        return {
            results: results.map(({ rows, command }) => ({ rows, command })),
            serverVersion
        };
    }
    finally {
        connection.stream.destroy();
    }
}
function ignore() { }

;// CONCATENATED MODULE: ./src/api/api-clock.ts

/** A runner clock further off than this from the API's is warned about (once). */
const CLOCK_SKEW_WARNING_MS = 60_000;
/** A `Date` header gives whole seconds (RFC 9110's IMF-fixdate). */
const DATE_RESOLUTION_MS = 1000;
/** The runner's clock, its wall time set to the API's by the answers' `Date` headers. */
class ApiClock {
    runner;
    logger;
    /** The API's wall clock minus the runner's. */
    offsetMs = 0;
    warned = false;
    constructor(runner, logger) {
        this.runner = runner;
        this.logger = logger;
    }
    now() {
        return this.runner.now();
    }
    sleep(ms, signal) {
        return this.runner.sleep(ms, signal);
    }
    /** The API's wall clock: the runner's until an answer's `Date` header disagrees with it. */
    wallNow() {
        return this.runner.wallNow() + this.offsetMs;
    }
    /** The API's clock minus the runner's, once they are more than CLOCK_SKEW_WARNING_MS apart. */
    disagreementMs() {
        return Math.abs(this.offsetMs) > CLOCK_SKEW_WARNING_MS ? this.offsetMs : 0;
    }
    /**
     * An answer's `Date` header, for a request sent at `sentAt` (monotonic) and answered now. The
     * server wrote it within that span, in the second it names: while this clock puts some moment of
     * the span in that second it is kept (so a runner in step keeps its milliseconds); else it is set
     * to the middle of that second at the middle of the span, and a runner more than
     * CLOCK_SKEW_WARNING_MS off is warned about once.
     */
    observe(date, sentAt) {
        // An HTTP date (RFC 9110: "Sun, 29 Nov 2026 12:00:00 GMT"), not one of the API's timestamps.
        const second = Date.parse(date ?? '');
        if (Number.isNaN(second))
            return;
        const answeredAt = this.runner.wallNow();
        const sentAtWall = answeredAt - (this.runner.now() - sentAt);
        const inStep = sentAtWall + this.offsetMs < second + DATE_RESOLUTION_MS &&
            answeredAt + this.offsetMs >= second;
        if (inStep)
            return;
        this.offsetMs = second + DATE_RESOLUTION_MS / 2 - (sentAtWall + answeredAt) / 2;
        if (this.warned || Math.abs(this.offsetMs) <= CLOCK_SKEW_WARNING_MS)
            return;
        this.warned = true;
        const side = this.offsetMs < 0 ? 'ahead of' : 'behind';
        this.logger.warning(`The runner's clock is ${formatDuration(Math.abs(this.offsetMs))} ${side} the API's (its Date header): one of them is wrong, so each age the gate words is the least either clock allows`);
    }
}

;// CONCATENATED MODULE: ./src/api/pace.ts


/** How much slower the pace gets on each 429: from `interval`, to the recovery bound at once. */
const SLOWDOWN_FACTOR = 3;
/** Recovery comes back 10 % quicker with each poll that met no 429... */
const QUICK_RECOVERY = 0.9;
/** ...to this multiple of the pace at which the last 429 came, held while the gate remembers it... */
const PLATEAU_MARGIN = 2;
/** ...that is, until its last 429 is this old, or MEMORY_INTERVALS intervals if that is longer. */
const MEMORY_MS = 150_000;
const MEMORY_INTERVALS = 30;
/** While slowed, each wait is the pace ± 25 %, at random. */
const WAIT_JITTER = 0.25;
/**
 * How often a gate polls. The account's request budget is shared by every gate of every workflow,
 * and gates cannot talk to each other, so each one paces itself the way TCP flows share a link.
 *
 * A 429 triples the pace, up to the recovery bound (RECOVERY_INTERVALS intervals, so that a gate
 * whose trouble is over is back within it): one 429 takes a gate at `interval` straight to the
 * bound. Each poll answered without a 429 makes it quicker again, 10 % a poll, back to a plateau of
 * 2 times the pace at which the last 429 came, held while the gate remembers that 429: once the
 * 429 is 150 s old (30 intervals, if that is longer) and a poll is answered, the pace is `interval`
 * again. Each fresh 429 renews the memory, so a gate that keeps meeting them stays slow.
 *
 * The memory is counted in time, not in polls: the account's budget is a window in time, and a
 * slowed gate polls less often. Its length is the fleet's. In the simulation of 90 gates at 1.5x
 * the budget (`npm run simulate`, the action's own code), gates that come back to `interval` while
 * the fleet's operations still run fill the window again and meet a second crunch: with the 60 s
 * the contract asks for, about 0.85 more 429s a gate whatever the pace in between; 150 s is the
 * shortest memory with which both of its fleets meet no more 429s than with a memory that never
 * ends (docs/benchmarks.md has the figures).
 *
 * While slowed, each wait is drawn within ±25 % of the pace, so that gates slowed by the same
 * crunch do not come back in the same second. A gate that meets no 429 polls at exactly `interval`.
 */
class Pace {
    intervalMs;
    clock;
    logger;
    random;
    paceMs;
    /** The pace at which the last 429 came; 0 before any. */
    limitedAtMs = 0;
    /** When the last 429 came, on `clock`. */
    lastLimitedAt = 0;
    limitedThisPoll = false;
    /** Answers of 429 met in the whole run. */
    rateLimited = 0;
    /** The slowest pace reached. */
    slowestMs;
    constructor(intervalMs, clock, logger, random = Math.random) {
        this.intervalMs = intervalMs;
        this.clock = clock;
        this.logger = logger;
        this.random = random;
        this.paceMs = intervalMs;
        this.slowestMs = intervalMs;
    }
    onRateLimited() {
        this.rateLimited++;
        this.lastLimitedAt = this.clock.now();
        // The pace that was too quick: the first 429 of a poll says so, its retries' 429s do not.
        if (!this.limitedThisPoll)
            this.limitedAtMs = this.paceMs;
        this.limitedThisPoll = true;
        const next = Math.min(this.slowestAllowedMs, this.paceMs * SLOWDOWN_FACTOR);
        if (next > this.paceMs) {
            this.paceMs = next;
            this.slowestMs = Math.max(this.slowestMs, next);
            this.logger.info(`429: polling every ${formatDuration(next)} for now`);
        }
    }
    /**
     * A poll is over, answered: once the last 429 is old enough the pace is `interval` again (even
     * when this poll met it, and its retries went on that long); else, if this poll met no 429, it
     * recovers a step toward the plateau.
     */
    onPollDone() {
        const limited = this.limitedThisPoll;
        this.limitedThisPoll = false;
        if (this.paceMs === this.intervalMs)
            return;
        const memoryMs = Math.max(MEMORY_MS, MEMORY_INTERVALS * this.intervalMs);
        if (this.clock.now() - this.lastLimitedAt >= memoryMs) {
            this.paceMs = this.intervalMs;
            this.logger.info(`No 429 for ${formatDuration(memoryMs)}: polling every ${formatDuration(this.intervalMs)} again`);
            return;
        }
        if (limited)
            return;
        const plateauMs = Math.min(this.paceMs, this.limitedAtMs * PLATEAU_MARGIN);
        this.paceMs = Math.max(plateauMs, this.paceMs * QUICK_RECOVERY);
    }
    /**
     * How long to wait before the next poll: `interval`, or while slowed the pace ± 25 %, never
     * below `interval` nor past the recovery bound.
     */
    nextPollDelayMs() {
        if (this.paceMs === this.intervalMs)
            return this.intervalMs;
        const jittered = this.paceMs * (1 + WAIT_JITTER * (2 * this.random() - 1));
        return Math.round(Math.min(this.slowestAllowedMs, Math.max(this.intervalMs, jittered)));
    }
    get slowestAllowedMs() {
        return RECOVERY_INTERVALS * this.intervalMs;
    }
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/util.js

// functions
function assertEqual(val) {
    return val;
}
function assertNotEqual(val) {
    return val;
}
function toZod() {
    return (schema) => schema;
}
function assertIs(_arg) { }
function assertNever(_x) {
    throw new Error("Unexpected value in exhaustive check");
}
function assert(_) { }
function getEnumValues(entries) {
    const numericValues = Object.values(entries).filter((v) => typeof v === "number");
    const values = Object.entries(entries)
        .filter(([k, _]) => numericValues.indexOf(+k) === -1)
        .map(([_, v]) => v);
    return values;
}
function joinValues(array, separator = "|") {
    return array.map((val) => stringifyPrimitive(val)).join(separator);
}
function jsonStringifyReplacer(_, value) {
    if (typeof value === "bigint")
        return value.toString();
    return value;
}
// the accessor lives on a shared prototype: an own accessor makes every box a dictionary-mode object (~360 B and a slow load per read against ~100 B and an inlined getter here)
class Cached {
    constructor(getter) {
        this._getter = getter;
        this._value = undefined;
    }
    get value() {
        const getter = this._getter;
        if (getter !== undefined) {
            this._value = getter();
            this._getter = undefined;
        }
        return this._value;
    }
}
function cached(getter) {
    return new Cached(getter);
}
function nullish(input) {
    return input === null || input === undefined;
}
function cleanRegex(source) {
    const start = source.startsWith("^") ? 1 : 0;
    const end = source.endsWith("$") ? source.length - 1 : source.length;
    return source.slice(start, end);
}
function floatSafeRemainder(val, step) {
    const ratio = val / step;
    const roundedRatio = Math.round(ratio);
    // `val` and `step` each round to a double before the division rounds again, so a true decimal multiple's quotient can sit up to 1.5 of these scaled epsilons from the integer. A 1x tolerance therefore rejected 2.03 as a multiple of 0.07; 4x covers the worst case with margin.
    const tolerance = 4 * Number.EPSILON * Math.max(Math.abs(ratio), 1);
    if (Math.abs(ratio - roundedRatio) < tolerance)
        return 0;
    return ratio - roundedRatio;
}
const EVALUATING = /* @__PURE__*/ (/* unused pure expression or super */ null && (Symbol("evaluating")));
function defineLazy(object, key, getter) {
    let value = undefined;
    Object.defineProperty(object, key, {
        get() {
            if (value === EVALUATING) {
                // Circular reference detected, return undefined to break the cycle
                return undefined;
            }
            if (value === undefined) {
                value = EVALUATING;
                value = getter();
            }
            return value;
        },
        set(v) {
            Object.defineProperty(object, key, {
                value: v,
                // configurable: true,
            });
            // object[key] = v;
        },
        configurable: true,
    });
}
function objectClone(obj) {
    return Object.create(Object.getPrototypeOf(obj), Object.getOwnPropertyDescriptors(obj));
}
function util_assignProp(target, prop, value) {
    Object.defineProperty(target, prop, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
    });
}
/**
 * Whichever object a def's `shape` currently answers from: the one the caller passed until the first read, the frozen copy after it.
 *
 * Its keys and descriptors read without invoking anything, which is what lets a discriminated union check its discriminator, and the cycle walk read a shape, without resolving a getter that references the schema being constructed. A def that answers `shape` from an accessor of its own has none.
 */
function rawShape(def) {
    const desc = Object.getOwnPropertyDescriptor(def, "shape");
    return desc?.get ? desc.get.raw : desc?.value;
}
// where a builder reads its source's keys and descriptors, resolving only a shape a def answers for itself. A shape resolves by object spread, so only its enumerable keys are ever part of it.
function sourceShape(schema) {
    return rawShape(schema._zod.def) ?? schema._zod.def.shape;
}
// a key whose value is not settled yet, self-caching so every read after the first gets the same one
function deferProp(target, key, getter) {
    Object.defineProperty(target, key, {
        get() {
            const value = getter();
            util_assignProp(this, key, value);
            return value;
        },
        enumerable: true,
        configurable: true,
    });
}
// Writes a settled key. A plain assignment is much cheaper than `defineProperty` and produces the same descriptor, but it runs whatever setter already answers to the key — an accessor this shape deferred, or an inherited one, which `__proto__` has on every object and prototype pollution can add for any name.
function putProp(target, key, value) {
    if (key in target)
        util_assignProp(target, key, value);
    else
        target[key] = value;
}
/**
 * Copies `keys` of `source`'s shape onto `target`, each value passed through `wrap`.
 *
 * A key the source has resolved is copied through now, so the derived shape states it outright and nothing has to resolve it to learn what it holds. A key the source still defers stays deferred, and reads back through the source's own `shape`, so it resolves once and both shapes get that one schema.
 */
function mirrorShape(target, source, keys, wrap) {
    const raw = sourceShape(source);
    for (const key of keys) {
        const desc = Object.getOwnPropertyDescriptor(raw, key);
        if (!desc.enumerable)
            continue;
        if (desc.get) {
            deferProp(target, key, () => {
                const value = source._zod.def.shape[key];
                return wrap ? wrap(value, key) : value;
            });
        }
        else
            putProp(target, key, wrap ? wrap(desc.value, key) : desc.value);
    }
}
// same, for a plain shape a caller passed rather than a schema's
function mirrorProps(target, source) {
    for (const key of Reflect.ownKeys(source)) {
        const desc = Object.getOwnPropertyDescriptor(source, key);
        if (!desc.enumerable)
            continue;
        if (desc.get)
            deferProp(target, key, () => source[key]);
        else
            putProp(target, key, desc.value);
    }
}
function mergeDefs(...defs) {
    const mergedDescriptors = {};
    for (const def of defs) {
        const descriptors = Object.getOwnPropertyDescriptors(def);
        Object.assign(mergedDescriptors, descriptors);
    }
    return Object.defineProperties({}, mergedDescriptors);
}
function cloneDef(schema) {
    return mergeDefs(schema._zod.def);
}
function getElementAtPath(obj, path) {
    if (!path)
        return obj;
    return path.reduce((acc, key) => acc?.[key], obj);
}
function promiseAllObject(promisesObj) {
    const keys = Object.keys(promisesObj);
    const promises = keys.map((key) => promisesObj[key]);
    return Promise.all(promises).then((results) => {
        const resolvedObj = {};
        for (let i = 0; i < keys.length; i++) {
            resolvedObj[keys[i]] = results[i];
        }
        return resolvedObj;
    });
}
function randomString(length = 10) {
    const chars = "abcdefghijklmnopqrstuvwxyz";
    let str = "";
    for (let i = 0; i < length; i++) {
        str += chars[Math.floor(Math.random() * chars.length)];
    }
    return str;
}
function esc(str) {
    return JSON.stringify(str);
}
function slugify(input) {
    return input
        .toLowerCase()
        .trim()
        .replace(/[^\w\s-]/g, "")
        .replace(/[\s_-]+/g, "-")
        .replace(/^-+|-+$/g, "");
}
const captureStackTrace = ("captureStackTrace" in Error ? Error.captureStackTrace : (..._args) => { });
function util_isObject(data) {
    return typeof data === "object" && data !== null && !Array.isArray(data);
}
const util_allowsEval = /* @__PURE__*/ cached(() => {
    // Skip the probe under `jitless`: strict CSPs report the caught `new Function` as a `securitypolicyviolation` even though the throw is swallowed.
    if (globalConfig.jitless) {
        return false;
    }
    // @ts-ignore
    if (typeof navigator !== "undefined" && navigator?.userAgent?.includes("Cloudflare")) {
        return false;
    }
    try {
        const F = Function;
        new F("");
        return true;
    }
    catch (_) {
        return false;
    }
});
function isPlainObject(o) {
    if (util_isObject(o) === false)
        return false;
    // modified constructor
    const ctor = o.constructor;
    if (ctor === undefined)
        return true;
    if (typeof ctor !== "function")
        return true;
    // modified prototype
    const prot = ctor.prototype;
    if (util_isObject(prot) === false)
        return false;
    // ctor doesn't have static `isPrototypeOf`
    if (Object.prototype.hasOwnProperty.call(prot, "isPrototypeOf") === false) {
        return false;
    }
    return true;
}
function shallowClone(o) {
    if (isPlainObject(o))
        return { ...o };
    if (Array.isArray(o))
        return [...o];
    if (o instanceof Map)
        return new Map(o);
    if (o instanceof Set)
        return new Set(o);
    return o;
}
function numKeys(data) {
    let keyCount = 0;
    for (const key in data) {
        if (Object.prototype.hasOwnProperty.call(data, key)) {
            keyCount++;
        }
    }
    return keyCount;
}
const getParsedType = (data) => {
    const t = typeof data;
    switch (t) {
        case "undefined":
            return "undefined";
        case "string":
            return "string";
        case "number":
            return Number.isNaN(data) ? "nan" : "number";
        case "boolean":
            return "boolean";
        case "function":
            return "function";
        case "bigint":
            return "bigint";
        case "symbol":
            return "symbol";
        case "object":
            if (Array.isArray(data)) {
                return "array";
            }
            if (data === null) {
                return "null";
            }
            if (data.then && typeof data.then === "function" && data.catch && typeof data.catch === "function") {
                return "promise";
            }
            if (typeof Map !== "undefined" && data instanceof Map) {
                return "map";
            }
            if (typeof Set !== "undefined" && data instanceof Set) {
                return "set";
            }
            if (typeof Date !== "undefined" && data instanceof Date) {
                return "date";
            }
            // @ts-ignore
            if (typeof File !== "undefined" && data instanceof File) {
                return "file";
            }
            return "object";
        default:
            throw new Error(`Unknown data type: ${t}`);
    }
};
const propertyKeyTypes = /* @__PURE__*/ new Set(["string", "number", "symbol"]);
const primitiveTypes = /* @__PURE__*/ new Set([
    "string",
    "number",
    "bigint",
    "boolean",
    "symbol",
    "undefined",
]);
function escapeRegex(str) {
    return str.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
// zod-specific utils
function clone(inst, def, params) {
    const cl = new inst._zod.constr(def ?? inst._zod.def);
    if (!def || params?.parent)
        cl._zod.parent = inst;
    return cl;
}
function normalizeParams(_params) {
    const params = _params;
    if (!params)
        return {};
    if (typeof params === "string")
        return { error: () => params };
    if (params?.message !== undefined) {
        if (params?.error !== undefined)
            throw new Error("Cannot specify both `message` and `error` params");
        params.error = params.message;
    }
    delete params.message;
    if (typeof params.error === "string")
        return { ...params, error: () => params.error };
    return params;
}
function createTransparentProxy(getter) {
    let target;
    return new Proxy({}, {
        get(_, prop, receiver) {
            target ?? (target = getter());
            return Reflect.get(target, prop, receiver);
        },
        set(_, prop, value, receiver) {
            target ?? (target = getter());
            return Reflect.set(target, prop, value, receiver);
        },
        has(_, prop) {
            target ?? (target = getter());
            return Reflect.has(target, prop);
        },
        deleteProperty(_, prop) {
            target ?? (target = getter());
            return Reflect.deleteProperty(target, prop);
        },
        ownKeys(_) {
            target ?? (target = getter());
            return Reflect.ownKeys(target);
        },
        getOwnPropertyDescriptor(_, prop) {
            target ?? (target = getter());
            return Reflect.getOwnPropertyDescriptor(target, prop);
        },
        defineProperty(_, prop, descriptor) {
            target ?? (target = getter());
            return Reflect.defineProperty(target, prop, descriptor);
        },
    });
}
function stringifyPrimitive(value) {
    if (typeof value === "bigint")
        return value.toString() + "n";
    if (typeof value === "string")
        return `"${value}"`;
    return `${value}`;
}
function optionalKeys(shape) {
    return Object.keys(shape).filter((k) => {
        return shape[k]._zod.optin !== undefined && shape[k]._zod.optout === "optional";
    });
}
// Wrapped in a `@__PURE__` IIFE: esbuild never tree-shakes a top-level initializer that contains a member access on `Number`, so the bare object literal survived into every bundle.
const NUMBER_FORMAT_RANGES = /*@__PURE__*/ (() => ({
    safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    int32: [-2147483648, 2147483647],
    uint32: [0, 4294967295],
    float32: [-3.4028234663852886e38, 3.4028234663852886e38],
    float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
}))();
const BIGINT_FORMAT_RANGES = {
    int64: [/* @__PURE__*/ BigInt("-9223372036854775808"), /* @__PURE__*/ BigInt("9223372036854775807")],
    uint64: [/* @__PURE__*/ BigInt(0), /* @__PURE__*/ BigInt("18446744073709551615")],
};
function pick(schema, mask) {
    const currDef = schema._zod.def;
    const checks = currDef.checks;
    const hasChecks = checks && checks.length > 0;
    if (hasChecks) {
        throw new Error(".pick() cannot be used on object schemas containing refinements");
    }
    const newShape = {};
    mirrorShape(newShape, schema, maskedKeys(schema, mask));
    return clone(schema, mergeDefs(currDef, { shape: newShape, checks: [] }));
}
// the mask keys that select something, checked against the source's shape without resolving it
function maskedKeys(schema, mask) {
    const raw = sourceShape(schema);
    const keys = [];
    // `for...in` skips symbols, so a symbol in the mask would select nothing
    for (const key of Reflect.ownKeys(mask)) {
        if (!Object.getOwnPropertyDescriptor(raw, key)?.enumerable) {
            throw new Error(`Unrecognized key: "${String(key)}"`);
        }
        if (mask[key])
            keys.push(key);
    }
    return keys;
}
function omit(schema, mask) {
    const currDef = schema._zod.def;
    const checks = currDef.checks;
    const hasChecks = checks && checks.length > 0;
    if (hasChecks) {
        throw new Error(".omit() cannot be used on object schemas containing refinements");
    }
    const omitted = new Set(maskedKeys(schema, mask));
    const newShape = {};
    mirrorShape(newShape, schema, Reflect.ownKeys(sourceShape(schema)).filter((key) => !omitted.has(key)));
    return clone(schema, mergeDefs(currDef, { shape: newShape, checks: [] }));
}
function extend(schema, shape) {
    if (!isPlainObject(shape)) {
        throw new Error("Invalid input to extend: expected a plain object");
    }
    const checks = schema._zod.def.checks;
    const hasChecks = checks && checks.length > 0;
    if (hasChecks) {
        // Only throw if new shape overlaps with existing shape. Use getOwnPropertyDescriptor to check key existence without accessing values
        const existingShape = sourceShape(schema);
        for (const key of Reflect.ownKeys(shape)) {
            if (Object.getOwnPropertyDescriptor(existingShape, key) !== undefined) {
                throw new Error("Cannot overwrite keys on object schemas containing refinements. Use `.safeExtend()` instead.");
            }
        }
    }
    return clone(schema, mergeDefs(schema._zod.def, { shape: extended(schema, shape) }));
}
// the source's keys, then the caller's overlaid on top
function extended(schema, shape) {
    const newShape = {};
    mirrorShape(newShape, schema, Reflect.ownKeys(sourceShape(schema)));
    mirrorProps(newShape, shape);
    return newShape;
}
function safeExtend(schema, shape) {
    if (!isPlainObject(shape)) {
        throw new Error("Invalid input to safeExtend: expected a plain object");
    }
    return clone(schema, mergeDefs(schema._zod.def, { shape: extended(schema, shape) }));
}
function merge(a, b) {
    if (!b?._zod?.def) {
        throw new Error("Invalid input to merge: expected an object schema. To merge a plain shape, use `.extend()`.");
    }
    if (a._zod.def.checks?.length) {
        throw new Error(".merge() cannot be used on object schemas containing refinements. Use .safeExtend() instead.");
    }
    const newShape = {};
    mirrorShape(newShape, a, Reflect.ownKeys(sourceShape(a)));
    mirrorShape(newShape, b, Reflect.ownKeys(sourceShape(b)));
    const def = mergeDefs(a._zod.def, {
        shape: newShape,
        get catchall() {
            return b._zod.def.catchall;
        },
        checks: b._zod.def.checks ?? [],
    });
    return clone(a, def);
}
function partial(Class, schema, mask, name = "partial") {
    const currDef = schema._zod.def;
    const checks = currDef.checks;
    const hasChecks = checks && checks.length > 0;
    if (hasChecks) {
        throw new Error(`.${name}() cannot be used on object schemas containing refinements`);
    }
    const selected = mask ? new Set(maskedKeys(schema, mask)) : undefined;
    const newShape = {};
    mirrorShape(newShape, schema, Reflect.ownKeys(sourceShape(schema)), Class &&
        ((value, key) => (selected && !selected.has(key) ? value : new Class({ type: "optional", innerType: value }))));
    return clone(schema, mergeDefs(schema._zod.def, { shape: newShape, checks: [] }));
}
function required(Class, schema, mask) {
    const selected = mask ? new Set(maskedKeys(schema, mask)) : undefined;
    const newShape = {};
    mirrorShape(newShape, schema, Reflect.ownKeys(sourceShape(schema)), (value, key) => 
    // overwrite with non-optional
    selected && !selected.has(key) ? value : new Class({ type: "nonoptional", innerType: value }));
    return clone(schema, mergeDefs(schema._zod.def, { shape: newShape }));
}
// invalid_type | too_big | too_small | invalid_format | not_multiple_of | unrecognized_keys | invalid_union | invalid_key | invalid_element | invalid_value | custom
function aborted(x, startIndex = 0) {
    if (x.aborted === true)
        return true;
    for (let i = startIndex; i < x.issues.length; i++) {
        if (x.issues[i]?.continue !== true) {
            return true;
        }
    }
    return false;
}
// Checks for explicit abort (continue === false), as opposed to implicit abort (continue === undefined). Used to respect `abort: true` in .refine() even for checks that have a `when` function.
function explicitlyAborted(x, startIndex = 0) {
    if (x.aborted === true)
        return true;
    for (let i = startIndex; i < x.issues.length; i++) {
        if (x.issues[i]?.continue === false) {
            return true;
        }
    }
    return false;
}
function prefixIssues(path, issues) {
    return issues.map((iss) => {
        var _a;
        (_a = iss).path ?? (_a.path = []);
        iss.path.unshift(path);
        return iss;
    });
}
function unwrapMessage(message) {
    return typeof message === "string" ? message : message?.message;
}
/* A check holds no link back to the schema it is attached to — the same check instance is shared by every clone of that schema — so the owner is stamped onto the issues a check just raised, at the only point where both are in scope. Runs on the failure path only; `start` is the issue count from before the check ran. */
/** The leading size checks of `defChecks` that set an upper bound, each paired with it. */
function sizeCaps(defChecks) {
    const caps = [];
    for (const ch of defChecks ?? []) {
        const d = ch._zod.def;
        // a later check may rewrite the value
        if (!/_(length|size)$|_equals$/.test(d.check))
            break;
        const max = d.maximum ?? d.length ?? d.size;
        if (max >= 0)
            caps.push([max, ch]);
    }
    return caps;
}
function attachSchema(issues, start, inst) {
    var _a;
    for (let i = start; i < issues.length; i++) {
        (_a = issues[i]).schema ?? (_a.schema = inst);
    }
}
function finalizeIssue(iss, ctx, config) {
    var _a;
    // A schema that raised an issue itself owns it outright, and outranks any stamp an enclosing check left in `attachSchema`. String formats and z.custom() are schema and check at once, so when they act as a check they defer to that stamp instead.
    const traits = iss.inst?._zod?.traits;
    if (traits?.has("$ZodType")) {
        if (traits.has("$ZodCheck"))
            (_a = iss).schema ?? (_a.schema = iss.inst);
        else
            iss.schema = iss.inst;
    }
    // Decreasing specificity, first map to return a message wins. `inst` is whatever raised the issue, so a check's own map outranks the owning schema's.
    const schemaError = iss.schema !== iss.inst ? iss.schema?._zod.def?.error : undefined;
    const message = iss.message
        ? iss.message
        : (unwrapMessage(iss.inst?._zod.def?.error?.(iss)) ??
            unwrapMessage(schemaError?.(iss)) ??
            unwrapMessage(ctx?.error?.(iss)) ??
            unwrapMessage(config.customError?.(iss)) ??
            unwrapMessage(config.localeError?.(iss)) ??
            "Invalid input");
    // an explicit own-key copy beats object rest with excluded keys, which v8 routes through a generic runtime call; Object.keys rather than for-in so an issue pushed with a prototype does not leak inherited keys, and an own __proto__ key is dropped rather than assigned through the setter
    const full = {};
    for (const k of Object.keys(iss)) {
        if (k === "inst" || k === "schema" || k === "continue" || k === "input" || k === "__proto__")
            continue;
        full[k] = iss[k];
    }
    full.path ?? (full.path = []);
    full.message = message;
    if (ctx?.reportInput) {
        full.input = iss.input;
    }
    return full;
}
function getSizableOrigin(input) {
    if (input instanceof Set)
        return "set";
    if (input instanceof Map)
        return "map";
    // @ts-ignore
    if (input instanceof File)
        return "file";
    return "unknown";
}
const highSurrogate = /[\uD800-\uDBFF]/;
// Code points in `str`: a surrogate pair counts once, a lone surrogate as itself. Hand-rolled because the string iterator allocates and runs ~250x slower on this path; the regex probe exits ~50x quicker for a string with no astral characters.
function codePointLength(str) {
    const units = str.length;
    if (!highSurrogate.test(str))
        return units;
    let count = units;
    for (let i = 0; i < units - 1; i++) {
        if ((str.charCodeAt(i) & 0xfc00) === 0xd800 && (str.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
            count--;
            i++;
        }
    }
    return count;
}
function getLengthableOrigin(input) {
    if (Array.isArray(input))
        return "array";
    if (typeof input === "string")
        return "string";
    return "unknown";
}
function parsedType(data) {
    const t = typeof data;
    switch (t) {
        case "number": {
            return Number.isNaN(data) ? "nan" : "number";
        }
        case "object": {
            if (data === null) {
                return "null";
            }
            if (Array.isArray(data)) {
                return "array";
            }
            const obj = data;
            if (obj && Object.getPrototypeOf(obj) !== Object.prototype && "constructor" in obj && obj.constructor) {
                return obj.constructor.name;
            }
        }
    }
    return t;
}
function util_issue(...args) {
    const [iss, input, inst] = args;
    if (typeof iss === "string") {
        return {
            message: iss,
            code: "custom",
            input,
            inst,
        };
    }
    return { ...iss };
}
function cleanEnum(obj) {
    return Object.entries(obj)
        .filter(([k, _]) => {
        // return true if NaN, meaning it's not a number, thus a string key
        return Number.isNaN(Number.parseInt(k, 10));
    })
        .map((el) => el[1]);
}
// Codec utility functions
function base64ToUint8Array(base64) {
    const binaryString = atob(base64);
    const bytes = new Uint8Array(binaryString.length);
    for (let i = 0; i < binaryString.length; i++) {
        bytes[i] = binaryString.charCodeAt(i);
    }
    return bytes;
}
function uint8ArrayToBase64(bytes) {
    let binaryString = "";
    for (let i = 0; i < bytes.length; i++) {
        binaryString += String.fromCharCode(bytes[i]);
    }
    return btoa(binaryString);
}
function base64urlToUint8Array(base64url) {
    const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
    const padding = "=".repeat((4 - (base64.length % 4)) % 4);
    return base64ToUint8Array(base64 + padding);
}
function uint8ArrayToBase64url(bytes) {
    return uint8ArrayToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, "");
}
function hexToUint8Array(hex) {
    const cleanHex = hex.replace(/^0x/, "");
    if (cleanHex.length % 2 !== 0) {
        throw new Error("Invalid hex string length");
    }
    const bytes = new Uint8Array(cleanHex.length / 2);
    for (let i = 0; i < cleanHex.length; i += 2) {
        bytes[i / 2] = Number.parseInt(cleanHex.slice(i, i + 2), 16);
    }
    return bytes;
}
function uint8ArrayToHex(bytes) {
    return Array.from(bytes)
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
}
// instanceof
class Class {
    constructor(..._args) { }
}
//////////    PROTOTYPE INSTALLERS     //////////
//
// Members live on the prototype and materialize per instance on first read, which keeps own-property count under the step where V8 stops using inline slots. Changing anything here means re-measuring runtime, memory and bundle size together — see "The three axes" in AGENTS.md.
/**
 * Installs a trait's members on its prototype. Each value builds that member for the instance on first read; the built value shadows the accessor as an own property, so a detached `const { parse } = schema` keeps working.
 *
 * Call this from a `proto` initializer, which runs once per prototype — never per instance.
 */
function members(proto, table) {
    for (const key in table) {
        const desc = Object.getOwnPropertyDescriptor(table, key);
        // a getter installs as written, so it stays live: `description` reads through to the registry on every access. not enumerable: an object literal's is, and a prototype member never was
        if (desc.get)
            Object.defineProperty(proto, key, { ...desc, enumerable: false });
        // a method materializes bound on first read, which is what keeps a detached member working: `const opt = schema.optional; opt()`
        else
            defineBound(proto, key, desc.value);
    }
}
/** Shadows a prototype member with an own value, so a getter that builds from the instance runs once. */
function own(inst, key, value, enumerable = true) {
    Object.defineProperty(inst, key, { configurable: true, writable: true, enumerable, value });
    return value;
}
/** Like {@link own}, for a member that was never an own data property and has to stay out of `Object.keys`. */
function hide(inst, key, value) {
    return own(inst, key, value, false);
}
/** Adds members a table derives from the instance: each builds on first read and shadows as own data, and assignment shadows the same way, as when these were own properties. */
function derived(computes, table) {
    for (const key in computes) {
        const compute = computes[key];
        // an object literal's accessor is configurable and enumerable, and `members` copies the descriptor as written
        Object.defineProperty(table, key, {
            configurable: true,
            enumerable: true,
            get() {
                return own(this, key, compute(this));
            },
            set(value) {
                own(this, key, value);
            },
        });
    }
    return table;
}
function defineBound(proto, key, fn) {
    Object.defineProperty(proto, key, {
        configurable: true,
        get() {
            // vitest's spyOn calls a prototype getter bare to find the function it wraps, so a nullish receiver answers the raw method
            return this == null ? fn : own(this, key, fn.bind(this));
        },
        set(value) {
            own(this, key, value);
        },
    });
}
/** Returns the prototype to install on, or `undefined` if this group is already installed on it. */
function claim(inst, sentinel) {
    const proto = Object.getPrototypeOf(inst);
    // Runs on every construction, so `in` rather than the costlier `hasOwnProperty.call`. Sentinels are keys the group itself defines.
    return sentinel in proto ? undefined : proto;
}
// The internals whose init chain is installing. A second call for the same one is a derived constructor overriding its base, so it must not construct another schema in between or the override is dropped.
let installing;
// Set while a getter is running, so a value that resolved through a recursion break is not memoized. One shared descriptor shadows the key for the duration, which costs no per-key allocation.
let broke = false;
const breaker = {
    configurable: true,
    get() {
        broke = true;
        return undefined;
    },
};
/**
 * Installs a lazily-derived internal on the `_zod` prototype of `inst`'s
 * constructor, computed from the internals object itself and cached there on
 * first read. One accessor per constructor rather than one per instance.
 */
function defineLazyInternal(inst, key, compute) {
    const proto = Object.getPrototypeOf(inst._zod);
    if (key in proto && installing !== inst._zod) {
        // A repeat construction: everything is installed already. Cleared here so the reference is not held past the first construction of every type.
        installing = undefined;
        return;
    }
    installing = inst._zod;
    Object.defineProperty(proto, key, {
        configurable: true,
        get() {
            // Shadowed before computing so a re-entrant read from a recursive schema resolves to undefined instead of running the getter again.
            Object.defineProperty(this, key, breaker);
            const outer = broke;
            broke = false;
            try {
                const value = compute(this);
                // A result that resolved through a recursion break is recomputed once the graph is complete; everything else memoizes, undefined included.
                if (broke)
                    delete this[key];
                else
                    Object.defineProperty(this, key, { configurable: true, writable: true, value });
                broke = broke || outer;
                return value;
            }
            catch (err) {
                // A compute that threw memoizes nothing, so a later read runs it again and fails the same way. The shadow goes with it, since leaving it installed would answer undefined for every later read.
                delete this[key];
                broke = broke || outer;
                throw err;
            }
        },
        set(value) {
            Object.defineProperty(this, key, { configurable: true, writable: true, value });
        },
    });
}
/**
 * Installs `key` on `inst`'s prototype, computed by `make` on first read and cached there as an own
 * data property. One accessor per constructor rather than one per instance, because an own accessor
 * puts every instance after the first into v8 dictionary mode. The key doubles as the sentinel.
 */
function installLazyProp(inst, key, make, enumerable) {
    const proto = claim(inst, key);
    if (!proto)
        return;
    Object.defineProperty(proto, key, {
        configurable: true,
        get() {
            // Shadowed before computing, so a re-entrant read from a self-referential shape resolves to undefined instead of running the getter again. A data property rather than an accessor: an own accessor is the dictionary-mode transition this exists to avoid.
            const desc = { configurable: true, writable: true, enumerable, value: undefined };
            Object.defineProperty(this, key, desc);
            // a compute that throws leaves the shadow behind, so later reads answer undefined instead of re-throwing; `defineLazy` did the same, and `defineLazyInternal`'s delete-on-catch would cost bytes in every bundle for a case only a throwing user getter reaches
            desc.value = make(this);
            Object.defineProperty(this, key, desc);
            return desc.value;
        },
        set(value) {
            Object.defineProperty(this, key, { configurable: true, writable: true, enumerable, value });
        },
    });
}
/** Marks the thunk `_catch` synthesises for a constant catch value. `Function.length` cannot tell that thunk from a user callback — rest and defaulted parameters both report arity 0 — and a user callback reads `ctx.error`, whose issues only finalize correctly against the caller's per-parse error map. Provenance can say what arity cannot. A plain string key rather than `Symbol.for`, whose call at module scope no bundler can prove pure — the same shape that anchored `urlCanParse` into every build. */
const CONSTANT_CATCH = "~constantCatch";
/** Wraps a constant catch value in a thunk tagged with {@link CONSTANT_CATCH}. */
function constantCatch(value) {
    const fn = () => value;
    fn[CONSTANT_CATCH] = true;
    return fn;
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/core.js
var _a;

/** A special constant with type `never` */
const NEVER = /*@__PURE__*/ Object.freeze({
    status: "aborted",
});
/* Shared descriptor for installing `_zod`; defineProperty reads it
 * synchronously, so reusing one object avoids a per-instance allocation. */
const _zodDesc = { value: undefined, enumerable: false };
// null where suppressing the capture would be unrecoverable: `parse()` puts the frames back with `captureStackTrace`, so without it the throw would lose its stack. also latched to null once `stackTraceLimit` proves unassignable, which a realm can do at any point by hardening Error
let _E = "captureStackTrace" in Error ? Error : null;
// v8 captures a stack trace inside the Error constructor, which dominates a failed parse; costs only the frames, and parse() restores those. the constructor must RUN: Object.create is cheaper and passes instanceof, but Error.isError and util.types.isNativeError check an internal slot
function newError(Definition) {
    const E = _E;
    if (E) {
        const saved = E.stackTraceLimit;
        if (typeof saved === "number") {
            try {
                E.stackTraceLimit = 0;
            }
            catch {
                _E = null;
                return new Definition();
            }
            try {
                return new Definition();
            }
            finally {
                E.stackTraceLimit = saved;
            }
        }
    }
    return new Definition();
}
function $constructor(name, initializer, 
/** This trait's members, installed once on every prototype that composes it. They cannot be declared in the initializer above: that runs per instance, and the prototype is shared. */
proto, params) {
    // Prototype for this constructor's `_zod` internals. Lazily-derived fields (`values`, `pattern`, `optin`, …) install here once rather than as an accessor on every instance.
    const zodProto = {};
    // Assigning the fields in the constructor body is what gives instances in-object slots; building the object literally and reparenting it costs a second allocation and a generic property copy.
    function Internals(def) {
        this.def = def;
        this.constr = _;
        this.traits = new Set();
    }
    Internals.prototype = zodProto;
    const protoMembers = proto;
    // One trait's members land on every prototype whose chain composes it, so the answer is per prototype rather than per trait.
    const initialized = protoMembers && new WeakSet();
    function init(inst, def) {
        if (!inst._zod) {
            _zodDesc.value = new Internals(def);
            try {
                Object.defineProperty(inst, "_zod", _zodDesc);
            }
            finally {
                // Cleared even on throw, so the shared descriptor never leaks one instance's internals into the next.
                _zodDesc.value = undefined;
            }
        }
        else if (inst._zod.traits.has(name)) {
            return;
        }
        inst._zod.traits.add(name);
        initializer(inst, def);
        if (initialized) {
            // `super(def)` from a user subclass gives `this` a prototype the subclass owns, and installing there would overwrite whatever the subclass declared. `constr` built the instance, so its prototype is the one below the subclass's that should carry the members. A receiver whose chain never reaches that prototype installs on its own, which for a plain object handed straight to `init` means `Object.prototype` — unchanged from before.
            const own = Object.getPrototypeOf(inst);
            const ctorProto = inst._zod.constr.prototype;
            let up = own;
            while (up && up !== ctorProto)
                up = Object.getPrototypeOf(up);
            const target = up ?? own;
            if (!initialized.has(target)) {
                initialized.add(target);
                members(target, protoMembers);
            }
        }
        // support prototype modifications; for-in avoids the array allocation of Object.keys on the (usually empty) prototype
        const proto = _.prototype;
        for (const k in proto) {
            if (!Object.prototype.hasOwnProperty.call(proto, k))
                continue;
            if (!(k in inst)) {
                inst[k] = proto[k].bind(inst);
            }
        }
    }
    // doesn't work if Parent has a constructor with arguments
    const Parent = params?.Parent ?? Object;
    class Definition extends Parent {
    }
    Object.defineProperty(Definition, "name", { value: name });
    function _(def) {
        const inst = params?.Parent ? newError(Definition) : this;
        init(inst, def);
        const deferred = inst._zod.deferred;
        if (deferred) {
            for (const fn of deferred) {
                fn();
            }
            // Released: initializers run once, and the list would otherwise be retained for the schema's lifetime.
            inst._zod.deferred = undefined;
        }
        // Global post-processor hook. Internal: installed by `import "zod/compile"` to enable AOT compilation for every constructed schema. Runs last, once the instance is fully built, because it hands the instance to compile(). The post-processor is expected to be reentrancy-guarded by its own implementation.
        const pp = globalThis.__zod_globalConfig?.postProcessor;
        if (pp)
            pp(inst);
        return inst;
    }
    Object.defineProperty(_, "init", { value: init });
    Object.defineProperty(_, Symbol.hasInstance, {
        value: (inst) => {
            if (params?.Parent && inst instanceof params.Parent)
                return true;
            return inst?._zod?.traits?.has(name);
        },
    });
    Object.defineProperty(_, "name", { value: name });
    return _;
}
//////////////////////////////   UTILITIES   ///////////////////////////////////////
const $brand = /*@__PURE__*/ (/* unused pure expression or super */ null && (Symbol("zod_brand")));
class $ZodAsyncError extends Error {
    constructor() {
        super(`Encountered Promise during synchronous parse. Use .parseAsync() instead.`);
    }
}
class $ZodEncodeError extends Error {
    constructor(name) {
        super(`Encountered unidirectional transform during encode: ${name}`);
        this.name = "ZodEncodeError";
    }
}
(_a = globalThis).__zod_globalConfig ?? (_a.__zod_globalConfig = {});
const globalConfig = globalThis.__zod_globalConfig;
function config(newConfig) {
    if (newConfig)
        Object.assign(globalConfig, newConfig);
    return globalConfig;
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/memoizer.js

class $ZodCyclicError extends Error {
    constructor() {
        super(`Cannot parse a reference cycle that closes through a transform`);
        this.name = "ZodCyclicError";
    }
}
/** Keyed off the context object every schema in one parse call already shares. */
const STATE = "~memo";
const NO_ISSUES = [];
// a value a cycle can close through
function isRef(value) {
    return value !== null && typeof value === "object";
}
// Receivers prefix paths in place, so the cache and every hand-out need their own copies.
function cloneIssues(issues) {
    return issues.map((iss) => (iss.path ? { ...iss, path: iss.path.slice() } : { ...iss }));
}
const recursive = /*@__PURE__*/ new WeakMap();
/** What the walk established, in order of certainty: ordered so the strongest answer among children wins. */
const NONE = 0;
const ASSUMED = 1;
const PROVEN = 2;
/** Whether this schema's subtree contains a cycle, so one parse can re-enter it. */
function isRecursive(inst, stack, resolve) {
    const cached = recursive.get(inst);
    if (cached !== undefined)
        return cached ? PROVEN : NONE;
    // Relative to the walk in progress, so not cached.
    if (stack.has(inst))
        return PROVEN;
    stack.add(inst);
    let result = NONE;
    const check = (child) => {
        if (result !== PROVEN && child?._zod) {
            const answer = isRecursive(child, stack, resolve);
            if (answer > result)
                result = answer;
        }
    };
    // `Reflect.ownKeys` rather than `Object.keys`, so a cycle through a declared symbol key is still seen
    const shape = (sh, spread) => {
        let answer = NONE;
        for (const key of Reflect.ownKeys(sh)) {
            const desc = Object.getOwnPropertyDescriptor(sh, key);
            // an object resolves its shape by spread, so a key it does not enumerate is never parsed; `z.properties` reads every own key and so keeps them all
            if (spread && !desc.enumerable)
                continue;
            // resolving runs user code, and a factory mints a fresh subtree per read, so an edge the walk can't follow counts as a cycle
            const child = desc.get ? ASSUMED : desc.value?._zod ? isRecursive(desc.value, stack, resolve) : NONE;
            if (child > answer)
                answer = child;
        }
        return answer;
    };
    const merge = (answer) => {
        if (answer > result)
            result = answer;
    };
    const def = inst._zod.def;
    const kind = def.type;
    switch (kind) {
        case "object": {
            const raw = rawShape(def);
            // a def with no raw shape answers `shape` from an accessor of its own, and running that can mint a whole fresh subtree
            merge(raw ? shape(raw, true) : ASSUMED);
            check(def.catchall);
            break;
        }
        case "array":
            check(def.element);
            break;
        case "tuple":
            for (const el of def.items)
                check(el);
            check(def.rest);
            break;
        case "record":
        case "map":
            check(def.keyType);
            check(def.valueType);
            break;
        case "set":
            check(def.valueType);
            break;
        case "union":
            for (const el of def.options)
                check(el);
            break;
        case "intersection":
            check(def.left);
            check(def.right);
            break;
        case "optional":
        case "nullable":
        case "default":
        case "prefault":
        case "catch":
        case "readonly":
        case "nonoptional":
        case "promise":
        case "success":
            check(def.innerType);
            break;
        case "pipe":
            check(def.in);
            check(def.out);
            break;
        case "function":
            check(def.input);
            check(def.output);
            break;
        // `$ZodLazy` caches its inner on the def, so a resolved edge is followed exactly
        case "lazy": {
            const inner = def._cachedInner ?? (resolve ? inst._zod.innerType : undefined);
            // walked with resolution off: one hop sees past the deferral, and a lazy that yields only another unresolved lazy is generative, so it stops there
            merge(inner ? isRecursive(inner, stack, false) : ASSUMED);
            break;
        }
        // a leaf by choice: `parts` are regex fragments, not data positions
        case "template_literal":
        // leaves
        case "string":
        case "number":
        case "int":
        case "boolean":
        case "bigint":
        case "symbol":
        case "undefined":
        case "null":
        case "void":
        case "never":
        case "any":
        case "unknown":
        case "date":
        case "nan":
        case "enum":
        case "literal":
        case "file":
        case "transform":
        case "custom":
            break;
        default: {
            // a new built-in kind becomes a compile error here
            kind;
            // a user-defined kind can still hold children, and only its author knows where, so fall back to scanning the def — skipping accessors, since reading one can run user code
            for (const key in def) {
                const desc = Object.getOwnPropertyDescriptor(def, key);
                if (!desc || desc.get)
                    continue;
                const value = desc.value;
                if (!value || typeof value !== "object")
                    continue;
                if (value._zod)
                    check(value);
                else if (Array.isArray(value))
                    for (const el of value)
                        check(el);
            }
        }
    }
    stack.delete(inst);
    return settle(inst, result);
}
/** An assumed answer must not outlive the resolution that settles it, so only a certain one is cached. */
function settle(inst, answer) {
    if (answer !== ASSUMED)
        recursive.set(inst, answer === PROVEN);
    return answer;
}
/**
 * Whether one parse can re-enter this schema, i.e. its subtree contains a cycle.
 * Exported for `z.compile`, which refuses to compile such a schema: cycle
 * breaking is driven from here off state keyed on the parse context, and a
 * generated fast path has no context to key on.
 */
function isRecursiveSchema(inst) {
    // z.compile never parses, so nothing would ever resolve a lazy for it; it runs once and already treats a throw here as recursive
    return isRecursive(inst, new Set(), true) !== NONE;
}
function bucketFor(state, inst) {
    let bucket = state.buckets.get(inst);
    if (!bucket) {
        bucket = new WeakMap();
        state.buckets.set(inst, bucket);
    }
    return bucket;
}
// Set immediately before delegating to core and cleared immediately after, so `alloc` registers only for a visit this module is driving.
let handoff;
// Allocated but unfinished entries. `alloc` and the matching pop both happen in the synchronous part of a parse, so they nest even when children are async, and one stack serves every schema.
const memoizer_open = [];
const memo = {
    alloc(_inst, payload, empty) {
        const bucket = handoff;
        if (!bucket)
            return empty;
        handoff = undefined;
        const entry = { value: empty, issues: null };
        bucket.set(payload.value, entry);
        memoizer_open.push(entry);
        return empty;
    },
    guard(inst) {
        var _a;
        (_a = inst._zod).deferred ?? (_a.deferred = []);
        inst._zod.deferred.push(() => {
            const base = inst._zod.parse;
            const wrapped = (payload, ctx) => {
                // The value is a placeholder a back-edge is still waiting on, so the cycle closes through this transform. Its output can't exist in time to bind.
                if (ctx.direction !== "backward" && isBackEdge(ctx, payload.value))
                    throw new $ZodCyclicError();
                return base(payload, ctx);
            };
            inst._zod.parse = wrapped;
            if (inst._zod.run === base)
                inst._zod.run = wrapped;
        });
    },
    attach(inst) {
        var _a;
        let isRecursiveInst;
        let rechecked = false;
        // a recursive schema is re-entered many times per parse and its bucket never changes
        let lastCtx;
        let lastBucket;
        // Wraps `parse` in a deferred so it sees the container's final parse. Core's own deferred copies `parse` into `run` when there are no checks, and it ran first, so `run` is patched to match; with checks, `run` reads `parse` dynamically.
        (_a = inst._zod).deferred ?? (_a.deferred = []);
        inst._zod.deferred.push(() => {
            const base = inst._zod.parse;
            const wrapped = (payload, ctx) => {
                if (isRecursiveInst === undefined) {
                    const walked = isRecursive(inst, new Set(), false);
                    if (walked === NONE) {
                        // Nothing here can ever fire, so take it back out.
                        inst._zod.parse = base;
                        if (inst._zod.run === wrapped)
                            inst._zod.run = base;
                        return base(payload, ctx);
                    }
                    // this parse resolves the deferred edges on its own path, so ask once more before latching
                    if (walked === PROVEN || rechecked)
                        isRecursiveInst = true;
                    else
                        rechecked = true;
                }
                const input = payload.value;
                if (!isRef(input))
                    return base(payload, ctx);
                let state = ctx[STATE];
                if (!state) {
                    state = { buckets: new WeakMap(), backEdges: undefined };
                    ctx[STATE] = state;
                }
                let bucket;
                if (lastCtx === ctx) {
                    bucket = lastBucket;
                }
                else {
                    bucket = bucketFor(state, inst);
                    lastCtx = ctx;
                    lastBucket = bucket;
                }
                const hit = bucket.get(input);
                if (hit) {
                    payload.value = hit.value;
                    if (hit.issues) {
                        if (hit.issues.length)
                            payload.issues.push(...cloneIssues(hit.issues));
                    }
                    else {
                        // Still being parsed: its own checks cover it, so skip them here.
                        payload.memo = true;
                        state.backEdges ?? (state.backEdges = new WeakSet());
                        state.backEdges.add(hit.value);
                    }
                    return payload;
                }
                handoff = bucket;
                const depth = memoizer_open.length;
                const result = base(payload, ctx);
                handoff = undefined;
                // A container that rejected its input outright allocated nothing.
                const entry = memoizer_open.length > depth ? memoizer_open.pop() : undefined;
                // Both paths written out so the sync one allocates no closure. It runs once per node, and capturing here cost more than everything else combined.
                if (result instanceof Promise) {
                    return result.then((r) => {
                        if (entry)
                            entry.issues = r.issues.length ? cloneIssues(r.issues) : NO_ISSUES;
                        return r;
                    });
                }
                if (entry)
                    entry.issues = result.issues.length ? cloneIssues(result.issues) : NO_ISSUES;
                return result;
            };
            inst._zod.parse = wrapped;
            if (inst._zod.run === base)
                inst._zod.run = wrapped;
        });
    },
};
/** The memoizer that gives containers cycle support. `zod` installs it by default; `zod/mini` opts in with `config({ memoizer: memoizer() })`. */
function memoizer() {
    return memo;
}
/** Whether this value is a node a back-edge resolved to before it finished. */
function isBackEdge(ctx, value) {
    const backEdges = ctx[STATE]?.backEdges;
    return backEdges !== undefined && isRef(value) && backEdges.has(value);
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/regexes.js

/**
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link cuid2} instead.
 * See https://github.com/paralleldrive/cuid.
 */
const cuid = /^[cC][0-9a-z]{6,}$/;
const cuid2 = /^[0-9a-z]+$/;
const ulid = /^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$/;
const xid = /^[0-9a-vA-V]{20}$/;
const ksuid = /^[A-Za-z0-9]{27}$/;
const nanoid = /^[a-zA-Z0-9_-]{21}$/;
function nanoidOfLength(length) {
    return new RegExp(`^[a-zA-Z0-9_-]{${length}}$`);
}
/** ISO 8601-1 duration regex. Does not support the 8601-2 extensions like negative durations or fractional/negative components. */
const duration = /^P(?:(\d+W)|(?!.*W)(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+([.,]\d+)?S)?)?)$/;
/** Implements ISO 8601-2 extensions like explicit +- prefixes, mixing weeks with other units, and fractional/negative components. */
const extendedDuration = /^[-+]?P(?!$)(?:(?:[-+]?\d+Y)|(?:[-+]?\d+[.,]\d+Y$))?(?:(?:[-+]?\d+M)|(?:[-+]?\d+[.,]\d+M$))?(?:(?:[-+]?\d+W)|(?:[-+]?\d+[.,]\d+W$))?(?:(?:[-+]?\d+D)|(?:[-+]?\d+[.,]\d+D$))?(?:T(?=[\d+-])(?:(?:[-+]?\d+H)|(?:[-+]?\d+[.,]\d+H$))?(?:(?:[-+]?\d+M)|(?:[-+]?\d+[.,]\d+M$))?(?:[-+]?\d+(?:[.,]\d+)?S)?)??$/;
/** A regex for any UUID-like identifier: 8-4-4-4-12 hex pattern */
const guid = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
/** Returns a regex for validating an RFC 9562/4122 UUID.
 *
 * @param version Optionally specify a version 1-8. If no version is specified, all versions are supported. */
const uuid = (version) => {
    if (!version)
        return /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
    return new RegExp(`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-${version}[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12})$`);
};
const uuid4 = /*@__PURE__*/ (/* unused pure expression or super */ null && (uuid(4)));
const uuid6 = /*@__PURE__*/ (/* unused pure expression or super */ null && (uuid(6)));
const uuid7 = /*@__PURE__*/ (/* unused pure expression or super */ null && (uuid(7)));
/** Practical email validation */
const email = /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/;
/** Equivalent to the HTML5 input[type=email] validation implemented by browsers. Source: https://developer.mozilla.org/en-US/docs/Web/HTML/Element/input/email */
const html5Email = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
/** The classic emailregex.com regex for RFC 5322-compliant emails */
const rfc5322Email = /^(([^<>()\[\]\\.,;:\s@"]+(\.[^<>()\[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/;
/** A loose regex that allows Unicode characters, enforces length limits, and that's about it. */
const unicodeEmail = /^[^\s@"]{1,64}@[^\s@]{1,255}$/u;
const idnEmail = (/* unused pure expression or super */ null && (unicodeEmail));
const browserEmail = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
// from https://thekevinscott.com/emojis-in-javascript/#writing-a-regular-expression
// Single character class, not an alternation: the two properties overlap (U+1F9B0-U+1F9B3), so `(A|B)+` backtracks exponentially on a failed match. The leading lookahead then demands one anchor — a pictograph, a regional indicator, or the enclosing keycap — because `\p{Emoji_Component}` on its own covers ASCII digits, `#`, `*`, ZWJ, variation selectors and skin tone modifiers, none of which is an emoji without a base.
const _emoji = `^(?=[\\s\\S]*[\\p{Extended_Pictographic}\\p{Regional_Indicator}\\u20E3])[\\p{Extended_Pictographic}\\p{Emoji_Component}]+$`;
function emoji() {
    return new RegExp(_emoji, "u");
}
const ipv4 = /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])$/;
const ipv6 = /^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))$/;
const mac = (delimiter) => {
    const escapedDelim = util.escapeRegex(delimiter ?? ":");
    return new RegExp(`^(?:[0-9A-F]{2}${escapedDelim}){5}[0-9A-F]{2}$|^(?:[0-9a-f]{2}${escapedDelim}){5}[0-9a-f]{2}$`);
};
const cidrv4 = /^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\/([0-9]|[1-2][0-9]|3[0-2])$/;
const cidrv6 = /^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))\/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$/;
// https://stackoverflow.com/questions/7860392/determine-if-string-is-in-base64-using-javascript
const base64 = /^$|^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$/;
const base64url = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$/;
// based on https://stackoverflow.com/questions/106179/regular-expression-to-match-dns-hostname-or-ip-address
// export const hostname: RegExp = /^([a-zA-Z0-9-]+\.)*[a-zA-Z0-9-]+$/;
const hostname = /^(?=.{1,253}\.?$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[-0-9a-zA-Z]{0,61}[0-9a-zA-Z])?)*\.?$/;
const domain = /^(?=.{1,253}$)([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$/;
const httpProtocol = /^https?$/;
// https://blog.stevenlevithan.com/archives/validate-phone-number#r4-3 (regex sans spaces) E.164: leading digit must be 1-9; total digits (excluding '+') between 7-15
const e164 = /^\+[1-9]\d{6,14}$/;
// Credit card shape: 12–19 digits, optionally separated by single spaces or single hyphens. ISO/IEC 7812 caps the PAN at 19 digits; 12 is the shortest issued length (Maestro).
const creditCard = /^\d(?:[ -]?\d){11,18}$/;
// ISO 4217 alpha codes from the SIX list, regenerated by scripts/update-iso-4217.ts
const currencyCode = /^(?:AED|AFN|ALL|AMD|AOA|ARS|AUD|AWG|AZN|BAM|BBD|BDT|BHD|BIF|BMD|BND|BOB|BOV|BRL|BSD|BTN|BWP|BYN|BZD|CAD|CDF|CHE|CHF|CHW|CLF|CLP|CNY|COP|COU|CRC|CUP|CVE|CZK|DJF|DKK|DOP|DZD|EGP|ERN|ETB|EUR|FJD|FKP|GBP|GEL|GHS|GIP|GMD|GNF|GTQ|GYD|HKD|HNL|HTG|HUF|IDR|ILS|INR|IQD|IRR|ISK|JMD|JOD|JPY|KES|KGS|KHR|KMF|KPW|KRW|KWD|KYD|KZT|LAK|LBP|LKR|LRD|LSL|LYD|MAD|MDL|MGA|MKD|MMK|MNT|MOP|MRU|MUR|MVR|MWK|MXN|MXV|MYR|MZN|NAD|NGN|NIO|NOK|NPR|NZD|OMR|PAB|PEN|PGK|PHP|PKR|PLN|PYG|QAR|RON|RSD|RUB|RWF|SAR|SBD|SCR|SDG|SEK|SGD|SHP|SLE|SOS|SRD|SSP|STN|SVC|SYP|SZL|THB|TJS|TMT|TND|TOP|TRY|TTD|TWD|TZS|UAH|UGX|USD|USN|UYI|UYU|UYW|UZS|VED|VES|VND|VUV|WST|XAD|XAF|XAG|XAU|XBA|XBB|XBC|XBD|XCD|XCG|XDR|XOF|XPD|XPF|XPT|XSU|XTS|XUA|XXX|YER|ZAR|ZMW|ZWG)$/;
// iban electronic format: 2-letter country, check digits 02-98 (the only values `98 - remainder` can produce), 11-30 bban characters
const iban = /^[A-Z]{2}(?!00|01|99)\d{2}[A-Z0-9]{11,30}$/;
const dateSource = `(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))`;
/** Anchors a pattern source. The interpolation lives here rather than at the call site because
 * esbuild will not drop a `@__PURE__` call whose own argument interpolates a variable, but it
 * will drop `anchor(dateSource)`. Keeping it inline pinned `date` into every bundle. */
function regexes_anchor(source) {
    return new RegExp(`^${source}$`);
}
const date = /*@__PURE__*/ regexes_anchor(dateSource);
function timeSource(args) {
    const hhmm = `(?:[01]\\d|2[0-3]):[0-5]\\d`;
    const regex = typeof args.precision === "number"
        ? args.precision === -1
            ? `${hhmm}`
            : args.precision === 0
                ? `${hhmm}:[0-5]\\d`
                : `${hhmm}:[0-5]\\d\\.\\d{${args.precision}}`
        : args.seconds
            ? `${hhmm}:[0-5]\\d(?:\\.\\d+)?`
            : `${hhmm}(?::[0-5]\\d(?:\\.\\d+)?)?`;
    return regex;
}
function time(args) {
    return new RegExp(`^${timeSource(args)}$`);
}
// Adapted from https://stackoverflow.com/a/3143231
function datetime(args) {
    const opts = ["Z"];
    // if (args.offset) opts.push(`([+-]\\d{2}:\\d{2})`);
    if (args.offset)
        opts.push(`([+-](?:[01]\\d|2[0-3]):[0-5]\\d)`);
    // RFC 3339 mandates seconds wherever the time carries a `Z` or an offset, so only the unqualified form `local` adds may omit them
    const qualified = `${timeSource({ precision: args.precision, seconds: true })}(?:${opts.join("|")})`;
    const timeRegex = args.local ? `${qualified}|${timeSource({ precision: args.precision })}` : qualified;
    return new RegExp(`^${dateSource}T(?:${timeRegex})$`);
}
// the unbounded form of `string()` as a literal, so every plain string shares one instance instead of building its own
const anyString = /^[\s\S]{0,}$/;
const string = (params) => {
    const regex = params ? `[\\s\\S]{${params?.minimum ?? 0},${params?.maximum ?? ""}}` : `[\\s\\S]*`;
    return new RegExp(`^${regex}$`);
};
const bigint = /^-?\d+n?$/;
const integer = /^-?\d+$/;
const number = /^-?\d+(?:\.\d+)?$/;
const regexes_boolean = /^(?:true|false)$/i;
const _null = /^null$/i;

const _undefined = /^undefined$/i;

// regex for string with no uppercase letters
const lowercase = /^[^A-Z]*$/;
// regex for string with no lowercase letters
const uppercase = /^[^a-z]*$/;
// regex for hexadecimal strings (any length)
const hex = /^[0-9a-fA-F]*$/;
// Hash regexes for different algorithms and encodings
// Helper function to create base64 regex with exact length and padding
function fixedBase64(bodyLength, padding) {
    return new RegExp(`^[A-Za-z0-9+/]{${bodyLength}}${padding}$`);
}
// Helper function to create base64url regex with exact length (no padding)
function fixedBase64url(length) {
    return new RegExp(`^[A-Za-z0-9_-]{${length}}$`);
}
// MD5 (16 bytes): base64 = 24 chars total (22 + "==")
const md5_hex = /^[0-9a-fA-F]{32}$/;
const md5_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(22, "==")));
const md5_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(22)));
// SHA1 (20 bytes): base64 = 28 chars total (27 + "=")
const sha1_hex = /^[0-9a-fA-F]{40}$/;
const sha1_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(27, "=")));
const sha1_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(27)));
// SHA256 (32 bytes): base64 = 44 chars total (43 + "=")
const sha256_hex = /^[0-9a-fA-F]{64}$/;
const sha256_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(43, "=")));
const sha256_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(43)));
// SHA384 (48 bytes): base64 = 64 chars total (no padding)
const sha384_hex = /^[0-9a-fA-F]{96}$/;
const sha384_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(64, "")));
const sha384_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(64)));
// SHA512 (64 bytes): base64 = 88 chars total (86 + "==")
const sha512_hex = /^[0-9a-fA-F]{128}$/;
const sha512_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(86, "==")));
const sha512_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(86)));

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/checks.js
// import { $ZodType } from "./schemas.js";



const $ZodCheck = /*@__PURE__*/ $constructor("$ZodCheck", (inst, def) => {
    var _a;
    inst._zod ?? (inst._zod = {});
    inst._zod.def = def;
    (_a = inst._zod).onattach ?? (_a.onattach = []);
});
/** Default `when` for size-based checks: run only on non-nullish values with a `size`. */
const _whenHasSize = (payload) => {
    const val = payload.value;
    return !util.nullish(val) && val.size !== undefined;
};
/** Default `when` for length-based checks: run only on non-nullish values with a `length`. */
const _whenHasLength = (payload) => {
    const val = payload.value;
    return !nullish(val) && val.length !== undefined;
};
const numericOriginMap = {
    number: "number",
    bigint: "bigint",
    object: "date",
};
const $ZodCheckLessThan = /*@__PURE__*/ $constructor("$ZodCheckLessThan", (inst, def) => {
    $ZodCheck.init(inst, def);
    const origin = numericOriginMap[typeof def.value];
    inst._zod.check = (payload) => {
        if (def.inclusive ? payload.value <= def.value : payload.value < def.value) {
            return;
        }
        payload.issues.push({
            origin: numericOriginMap[typeof payload.value] ?? origin,
            code: "too_big",
            maximum: typeof def.value === "object" ? def.value.getTime() : def.value,
            input: payload.value,
            inclusive: def.inclusive,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckGreaterThan = /*@__PURE__*/ $constructor("$ZodCheckGreaterThan", (inst, def) => {
    $ZodCheck.init(inst, def);
    const origin = numericOriginMap[typeof def.value];
    inst._zod.check = (payload) => {
        if (def.inclusive ? payload.value >= def.value : payload.value > def.value) {
            return;
        }
        payload.issues.push({
            origin: numericOriginMap[typeof payload.value] ?? origin,
            code: "too_small",
            minimum: typeof def.value === "object" ? def.value.getTime() : def.value,
            input: payload.value,
            inclusive: def.inclusive,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckMultipleOf = 
/*@__PURE__*/ $constructor("$ZodCheckMultipleOf", (inst, def) => {
    $ZodCheck.init(inst, def);
    inst._zod.check = (payload) => {
        if (typeof payload.value !== typeof def.value)
            throw new Error("Cannot mix number and bigint in multiple_of check.");
        const isMultiple = typeof payload.value === "bigint"
            ? // `value % 0n` throws, and nothing is a multiple of zero — the number branch already fails this way via NaN
                def.value !== BigInt(0) && payload.value % def.value === BigInt(0)
            : floatSafeRemainder(payload.value, def.value) === 0;
        if (isMultiple)
            return;
        payload.issues.push({
            origin: typeof payload.value,
            code: "not_multiple_of",
            divisor: def.value,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckNumberFormat = /*@__PURE__*/ $constructor("$ZodCheckNumberFormat", (inst, def) => {
    $ZodCheck.init(inst, def); // no format checks
    def.format = def.format || "float64";
    const isInt = def.format?.includes("int");
    const origin = isInt ? "int" : "number";
    const [minimum, maximum] = NUMBER_FORMAT_RANGES[def.format];
    inst._zod.check = (payload) => {
        const input = payload.value;
        if (isInt) {
            if (!Number.isInteger(input)) {
                // invalid_format issue
                // payload.issues.push({
                //   expected: def.format,
                //   format: def.format,
                //   code: "invalid_format",
                //   input,
                //   inst,
                // });
                // invalid_type issue
                payload.issues.push({
                    expected: origin,
                    format: def.format,
                    code: "invalid_type",
                    continue: false,
                    input,
                    inst,
                });
                return;
                // not_multiple_of issue
                // payload.issues.push({
                //   code: "not_multiple_of",
                //   origin: "number",
                //   input,
                //   inst,
                //   divisor: 1,
                // });
            }
            if (!Number.isSafeInteger(input)) {
                if (input > 0) {
                    // too_big
                    payload.issues.push({
                        input,
                        code: "too_big",
                        maximum: Number.MAX_SAFE_INTEGER,
                        note: "Integers must be within the safe integer range.",
                        inst,
                        origin,
                        inclusive: true,
                        continue: !def.abort,
                    });
                }
                else {
                    // too_small
                    payload.issues.push({
                        input,
                        code: "too_small",
                        minimum: Number.MIN_SAFE_INTEGER,
                        note: "Integers must be within the safe integer range.",
                        inst,
                        origin,
                        inclusive: true,
                        continue: !def.abort,
                    });
                }
                return;
            }
        }
        if (input < minimum) {
            payload.issues.push({
                origin: "number",
                input,
                code: "too_small",
                minimum,
                inclusive: true,
                inst,
                continue: !def.abort,
            });
        }
        if (input > maximum) {
            payload.issues.push({
                origin: "number",
                input,
                code: "too_big",
                maximum,
                inclusive: true,
                inst,
                continue: !def.abort,
            });
        }
    };
});
const $ZodCheckBigIntFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckBigIntFormat", (inst, def) => {
    $ZodCheck.init(inst, def); // no format checks
    const [minimum, maximum] = util.BIGINT_FORMAT_RANGES[def.format];
    inst._zod.check = (payload) => {
        const input = payload.value;
        if (input < minimum) {
            payload.issues.push({
                origin: "bigint",
                input,
                code: "too_small",
                minimum: minimum,
                inclusive: true,
                inst,
                continue: !def.abort,
            });
        }
        if (input > maximum) {
            payload.issues.push({
                origin: "bigint",
                input,
                code: "too_big",
                maximum,
                inclusive: true,
                inst,
                continue: !def.abort,
            });
        }
    };
})));
const $ZodCheckMaxSize = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckMaxSize", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasSize);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const size = input.size;
        if (size <= def.maximum)
            return;
        payload.issues.push({
            origin: util.getSizableOrigin(input),
            code: "too_big",
            maximum: def.maximum,
            inclusive: true,
            input,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodCheckMinSize = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckMinSize", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasSize);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const size = input.size;
        if (size >= def.minimum)
            return;
        payload.issues.push({
            origin: util.getSizableOrigin(input),
            code: "too_small",
            minimum: def.minimum,
            inclusive: true,
            input,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodCheckSizeEquals = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckSizeEquals", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasSize);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const size = input.size;
        if (size === def.size)
            return;
        const tooBig = size > def.size;
        payload.issues.push({
            origin: util.getSizableOrigin(input),
            ...(tooBig ? { code: "too_big", maximum: def.size } : { code: "too_small", minimum: def.size }),
            inclusive: true,
            exact: true,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodCheckMaxLength = /*@__PURE__*/ $constructor("$ZodCheckMaxLength", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const units = input.length;
        // Strings are measured in Unicode code points, not UTF-16 units. A code point is at most two units, so a string that already fits in units fits in code points; only an overflow has to be counted.
        const length = typeof input === "string" && units > def.maximum ? codePointLength(input) : units;
        if (length <= def.maximum)
            return;
        const origin = getLengthableOrigin(input);
        payload.issues.push({
            origin,
            code: "too_big",
            maximum: def.maximum,
            inclusive: true,
            input,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckMinLength = /*@__PURE__*/ $constructor("$ZodCheckMinLength", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const units = input.length;
        // A code point is one or two UTF-16 units, so fewer units than the floor can never reach it and twice the floor always clears it. Only in between is the exact count in doubt.
        const length = typeof input === "string" && units >= def.minimum && units < def.minimum * 2
            ? codePointLength(input)
            : units;
        if (length >= def.minimum)
            return;
        const origin = getLengthableOrigin(input);
        payload.issues.push({
            origin,
            code: "too_small",
            minimum: def.minimum,
            inclusive: true,
            input,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckLengthEquals = /*@__PURE__*/ $constructor("$ZodCheckLengthEquals", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const units = input.length;
        // A code point is one or two UTF-16 units, so outside `[length, length * 2]` units the target is missed either way — and missed in the same direction in both measures.
        const length = typeof input === "string" && units >= def.length && units <= def.length * 2
            ? codePointLength(input)
            : units;
        if (length === def.length)
            return;
        const origin = getLengthableOrigin(input);
        const tooBig = length > def.length;
        payload.issues.push({
            origin,
            ...(tooBig ? { code: "too_big", maximum: def.length } : { code: "too_small", minimum: def.length }),
            inclusive: true,
            exact: true,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckStringFormat = /*@__PURE__*/ $constructor("$ZodCheckStringFormat", (inst, def) => {
    var _a, _b;
    $ZodCheck.init(inst, def);
    if (def.pattern)
        (_a = inst._zod).check ?? (_a.check = (payload) => {
            def.pattern.lastIndex = 0;
            if (def.pattern.test(payload.value))
                return;
            payload.issues.push({
                origin: "string",
                code: "invalid_format",
                format: def.format,
                input: payload.value,
                ...(def.pattern ? { pattern: def.pattern.toString() } : {}),
                inst,
                continue: !def.abort,
            });
        });
    else
        (_b = inst._zod).check ?? (_b.check = () => { });
});
const $ZodCheckRegex = /*@__PURE__*/ $constructor("$ZodCheckRegex", (inst, def) => {
    $ZodCheckStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        def.pattern.lastIndex = 0;
        if (def.pattern.test(payload.value))
            return;
        payload.issues.push({
            origin: "string",
            code: "invalid_format",
            format: "regex",
            input: payload.value,
            pattern: def.pattern.toString(),
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckLowerCase = /*@__PURE__*/ $constructor("$ZodCheckLowerCase", (inst, def) => {
    def.pattern ?? (def.pattern = lowercase);
    $ZodCheckStringFormat.init(inst, def);
});
const $ZodCheckUpperCase = /*@__PURE__*/ $constructor("$ZodCheckUpperCase", (inst, def) => {
    def.pattern ?? (def.pattern = uppercase);
    $ZodCheckStringFormat.init(inst, def);
});
const $ZodCheckIncludes = /*@__PURE__*/ $constructor("$ZodCheckIncludes", (inst, def) => {
    $ZodCheck.init(inst, def);
    const escapedRegex = escapeRegex(def.includes);
    // `String.prototype.includes(sub, position)` matches `sub` at `position`
    // OR LATER, so the pattern must allow at least `position` leading chars
    // (`{N,}`), not exactly `position` chars (`{N}`).
    const pattern = new RegExp(typeof def.position === "number" ? `^.{${def.position},}${escapedRegex}` : escapedRegex);
    def.pattern = pattern;
    inst._zod.check = (payload) => {
        if (payload.value.includes(def.includes, def.position))
            return;
        payload.issues.push({
            origin: "string",
            code: "invalid_format",
            format: "includes",
            includes: def.includes,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckStartsWith = /*@__PURE__*/ $constructor("$ZodCheckStartsWith", (inst, def) => {
    $ZodCheck.init(inst, def);
    const pattern = new RegExp(`^${escapeRegex(def.prefix)}.*`);
    def.pattern ?? (def.pattern = pattern);
    inst._zod.check = (payload) => {
        if (payload.value.startsWith(def.prefix))
            return;
        payload.issues.push({
            origin: "string",
            code: "invalid_format",
            format: "starts_with",
            prefix: def.prefix,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckEndsWith = /*@__PURE__*/ $constructor("$ZodCheckEndsWith", (inst, def) => {
    $ZodCheck.init(inst, def);
    const pattern = new RegExp(`.*${escapeRegex(def.suffix)}$`);
    def.pattern ?? (def.pattern = pattern);
    inst._zod.check = (payload) => {
        if (payload.value.endsWith(def.suffix))
            return;
        payload.issues.push({
            origin: "string",
            code: "invalid_format",
            format: "ends_with",
            suffix: def.suffix,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
///////////////////////////////////
/////    $ZodCheckProperty    /////
///////////////////////////////////
function handleCheckPropertyResult(result, payload, property) {
    if (result.issues.length) {
        payload.issues.push(...prefixIssues(property, result.issues));
    }
}
const $ZodCheckProperty = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckProperty", (inst, def) => {
    $ZodCheck.init(inst, def);
    inst._zod.check = (payload) => {
        const result = def.schema._zod.run({
            value: payload.value[def.property],
            issues: [],
        }, {});
        if (result instanceof Promise) {
            return result.then((result) => handleCheckPropertyResult(result, payload, def.property));
        }
        handleCheckPropertyResult(result, payload, def.property);
        return;
    };
})));
const $ZodCheckProperties = /*@__PURE__*/ $constructor("$ZodCheckProperties", (inst, def) => {
    $ZodCheck.init(inst, def);
    hide(inst, Symbol.iterator, function* () {
        yield inst;
    });
    // key and schema snapshotted together: reading one live and the other cached lets a later mutation of the caller's shape object pair a stale key with a missing schema
    let entries;
    inst._zod.check = (payload) => {
        // the base schema already typed the value, so only a nullish one is rejected here: the properties read on a primitive too, matching z.property() on a string's length
        if (payload.value == null) {
            payload.issues.push({ expected: "object", code: "invalid_type", input: payload.value, inst });
            return undefined;
        }
        entries ?? (entries = Reflect.ownKeys(def.shape).map((key) => [key, def.shape[key]]));
        const input = payload.value;
        let proms;
        for (const [key, schema] of entries) {
            const result = schema._zod.run({ value: input[key], issues: [] }, {});
            if (result instanceof Promise) {
                proms ?? (proms = []);
                proms.push(result.then((result) => handleCheckPropertyResult(result, payload, key)));
            }
            else {
                handleCheckPropertyResult(result, payload, key);
            }
        }
        if (proms)
            return Promise.all(proms).then(() => undefined);
        return undefined;
    };
});
const $ZodCheckMimeType = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckMimeType", (inst, def) => {
    $ZodCheck.init(inst, def);
    const mimeSet = new Set(def.mime);
    inst._zod.check = (payload) => {
        if (mimeSet.has(payload.value.type))
            return;
        payload.issues.push({
            code: "invalid_value",
            values: def.mime,
            input: payload.value.type,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodCheckOverwrite = /*@__PURE__*/ $constructor("$ZodCheckOverwrite", (inst, def) => {
    $ZodCheck.init(inst, def);
    inst._zod.check = (payload) => {
        payload.value = def.tx(payload.value);
    };
});

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/doc.js
class Doc {
    constructor(args = [], closed = {}) {
        this.content = [];
        this.indent = 0;
        this.args = args;
        this.closed = closed;
    }
    // the compiler catches a child's throw and keeps writing into this doc, so the indent has to unwind with it
    indented(fn) {
        this.indent += 1;
        try {
            fn(this);
        }
        finally {
            this.indent -= 1;
        }
    }
    write(arg) {
        if (typeof arg === "function") {
            arg(this, { execution: "sync" });
            arg(this, { execution: "async" });
            return;
        }
        const content = arg;
        const lines = content.split("\n").filter((x) => x);
        const minIndent = Math.min(...lines.map((x) => x.length - x.trimStart().length));
        const dedented = lines.map((x) => x.slice(minIndent)).map((x) => " ".repeat(this.indent * 2) + x);
        for (const line of dedented) {
            this.content.push(line);
        }
    }
    compile() {
        const F = Function;
        const content = this?.content ?? [``];
        const factory = new F(...Object.keys(this.closed), `return function (${this.args.join(", ")}) {\n${content.join("\n")}\n};`);
        return factory(...Object.values(this.closed));
    }
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/versions.js
const version = {
    major: 4,
    minor: 6,
    patch: 7,
};

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/schemas.js







const $ZodType = /*@__PURE__*/ $constructor("$ZodType", (inst, def) => {
    var _a;
    inst ?? (inst = {});
    inst._zod.def = def; // set _def property
    inst._zod.bag = inst._zod.bag || {}; // initialize _bag object
    inst._zod.version = version;
    const defChecks = inst._zod.def.checks;
    // if inst is itself a checks.$ZodCheck, run it as a check
    const checks = inst._zod.traits.has("$ZodCheck")
        ? [inst, ...(defChecks ?? [])]
        : defChecks?.length
            ? [...defChecks]
            : [];
    for (const ch of checks) {
        for (const fn of ch._zod.onattach) {
            fn(inst);
        }
    }
    if (checks.length === 0) {
        // deferred initializer inst._zod.parse is not yet defined
        (_a = inst._zod).deferred ?? (_a.deferred = []);
        inst._zod.deferred?.push(() => {
            inst._zod.run = inst._zod.parse;
        });
    }
    else {
        const runChecks = (payload, checks, ctx) => {
            if (payload.memo)
                return payload;
            let isAborted = aborted(payload);
            let asyncResult;
            for (const ch of checks) {
                if (ch._zod.def.when) {
                    if (explicitlyAborted(payload))
                        continue;
                    const shouldRun = ch._zod.def.when(payload);
                    if (!shouldRun)
                        continue;
                }
                else if (isAborted) {
                    continue;
                }
                const currLen = payload.issues.length;
                const _ = ch._zod.check(payload);
                if (_ instanceof Promise && ctx?.async === false) {
                    throw new $ZodAsyncError();
                }
                if (asyncResult || _ instanceof Promise) {
                    asyncResult = (asyncResult ?? Promise.resolve()).then(async () => {
                        await _;
                        const nextLen = payload.issues.length;
                        if (nextLen === currLen)
                            return;
                        attachSchema(payload.issues, currLen, inst);
                        if (!isAborted)
                            isAborted = aborted(payload, currLen);
                    });
                }
                else {
                    const nextLen = payload.issues.length;
                    if (nextLen === currLen)
                        continue;
                    attachSchema(payload.issues, currLen, inst);
                    if (!isAborted)
                        isAborted = aborted(payload, currLen);
                }
            }
            if (asyncResult) {
                return asyncResult.then(() => {
                    return payload;
                });
            }
            return payload;
        };
        const handleCanaryResult = (canary, payload, ctx) => {
            // abort if the canary is aborted
            if (aborted(canary)) {
                canary.aborted = true;
                return canary;
            }
            // run checks first, then
            const checkResult = runChecks(payload, checks, ctx);
            if (checkResult instanceof Promise) {
                if (ctx.async === false)
                    throw new $ZodAsyncError();
                return checkResult.then((checkResult) => inst._zod.parse(checkResult, ctx));
            }
            return inst._zod.parse(checkResult, ctx);
        };
        inst._zod.run = (payload, ctx) => {
            if (ctx.skipChecks) {
                return inst._zod.parse(payload, ctx);
            }
            if (ctx.direction === "backward") {
                // run canary initial pass (no checks)
                const canary = inst._zod.parse({ value: payload.value, issues: [] }, { ...ctx, skipChecks: true });
                if (canary instanceof Promise) {
                    return canary.then((canary) => {
                        return handleCanaryResult(canary, payload, ctx);
                    });
                }
                return handleCanaryResult(canary, payload, ctx);
            }
            // forward
            const result = inst._zod.parse(payload, ctx);
            if (result instanceof Promise) {
                if (ctx.async === false)
                    throw new $ZodAsyncError();
                return result.then((result) => runChecks(result, checks, ctx));
            }
            return runChecks(result, checks, ctx);
        };
    }
}, {
    // Wrappers extend this by installing a richer factory over it; reading it eagerly would defeat the laziness.
    get "~standard"() {
        return hide(this, "~standard", standardProps(this));
    },
    set "~standard"(value) {
        own(this, "~standard", value);
    },
});
/** The Standard Schema surface for `inst`. Shared so wrappers can extend it without forcing it. */
// a Standard Schema result only reports issues, so a failure finalizes them straight off the raw payload: no ZodError, and no lazy result to read through
const toStandardResult = (r, ctx) => r.issues.length ? { issues: r.issues.map((iss) => finalizeIssue(iss, ctx, config())) } : { value: r.value };
async function validateAsync(inst, value) {
    const ctx = { async: true };
    return toStandardResult((await inst._zod.run({ value, issues: [] }, ctx)), ctx);
}
function standardProps(inst) {
    return {
        validate: (value) => {
            const ctx = { async: false };
            try {
                const r = inst._zod.run({ value, issues: [] }, ctx);
                if (!(r instanceof Promise))
                    return toStandardResult(r, ctx);
            }
            catch (_) { }
            // async function so a synchronously throwing check rejects instead of escaping validate
            return validateAsync(inst, value);
        },
        vendor: "zod",
        version: 1,
    };
}

const $ZodString = /*@__PURE__*/ $constructor("$ZodString", (inst, def) => {
    $ZodType.init(inst, def);
    // a format's own pattern, else unbounded; a template literal derives the check-aware form itself
    inst._zod.pattern = def.pattern ?? anyString;
    inst._zod.parse = (payload, _) => {
        if (def.coerce)
            try {
                payload.value = String(payload.value);
            }
            catch (_) { }
        if (typeof payload.value === "string")
            return payload;
        payload.issues.push({
            expected: "string",
            code: "invalid_type",
            input: payload.value,
            inst,
        });
        return payload;
    };
});
const $ZodStringFormat = /*@__PURE__*/ $constructor("$ZodStringFormat", (inst, def) => {
    // check initialization must come first
    $ZodCheckStringFormat.init(inst, def);
    $ZodString.init(inst, def);
});
const $ZodGUID = /*@__PURE__*/ $constructor("$ZodGUID", (inst, def) => {
    def.pattern ?? (def.pattern = guid);
    $ZodStringFormat.init(inst, def);
});
const $ZodUUID = /*@__PURE__*/ $constructor("$ZodUUID", (inst, def) => {
    if (def.version) {
        const versionMap = {
            v1: 1,
            v2: 2,
            v3: 3,
            v4: 4,
            v5: 5,
            v6: 6,
            v7: 7,
            v8: 8,
        };
        const v = versionMap[def.version];
        if (v === undefined)
            throw new Error(`Invalid UUID version: "${def.version}"`);
        def.pattern ?? (def.pattern = uuid(v));
    }
    else
        def.pattern ?? (def.pattern = uuid());
    $ZodStringFormat.init(inst, def);
});
const $ZodEmail = /*@__PURE__*/ $constructor("$ZodEmail", (inst, def) => {
    def.pattern ?? (def.pattern = email);
    $ZodStringFormat.init(inst, def);
});
/** The `://` guard rejected the input before the URL constructor saw it. */
const URL_BAD_FORMAT = 1;
/** The URL parser rejected the input. */
const URL_UNPARSEABLE = 2;
function canParseURL(input) {
    try {
        if (typeof URL !== "undefined" && typeof URL.canParse === "function")
            return URL.canParse(input);
        new URL(input);
        return true;
    }
    catch {
        return false;
    }
}
function validateURL(trimmed, def) {
    if (!("normalize" in def) && !("hostname" in def) && !("protocol" in def)) {
        return canParseURL(trimmed) || URL_UNPARSEABLE;
    }
    return parseURLObject(trimmed, def);
}
/** Parses a URL while preserving the non-normalizing HTTP guard. */
function parseURLObject(trimmed, def) {
    // When normalize is off, require :// for http/https URLs. This prevents strings like "http:example.com" or "https:/path" from being silently accepted
    if (!def.normalize && def.protocol?.source === httpProtocol.source && !/^https?:\/\//i.test(trimmed)) {
        return URL_BAD_FORMAT;
    }
    try {
        if (typeof URL !== "undefined") {
            const URLStatic = URL;
            if (typeof URLStatic.parse === "function")
                return URLStatic.parse(trimmed) ?? URL_UNPARSEABLE;
        }
        // @ts-ignore
        return new URL(trimmed);
    }
    catch {
        return URL_UNPARSEABLE;
    }
}
const asciiTabOrNewline = /[\t\n\r]/g;
/** The URL parser deletes every ASCII tab, LF and CR from its input before it parses, so `new URL("https://exa\nmple.com")` reports on `example.com`. Applying the same deletion to the returned value closes the half of that divergence which can move the host; the parser's other rewrite, stripping C0 controls at the edges, cannot. */
function stripTabAndNewline(value) {
    return value.replace(asciiTabOrNewline, "");
}
function urlHostnameOk(url, hostname) {
    hostname.lastIndex = 0;
    return hostname.test(url.hostname);
}
function urlProtocolOk(url, protocol) {
    protocol.lastIndex = 0;
    return protocol.test(url.protocol.endsWith(":") ? url.protocol.slice(0, -1) : url.protocol);
}
const $ZodURL = /*@__PURE__*/ $constructor("$ZodURL", (inst, def) => {
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        try {
            // Trim whitespace from input
            const trimmed = payload.value.trim();
            const url = validateURL(trimmed, def);
            if (url === URL_BAD_FORMAT) {
                payload.issues.push({
                    code: "invalid_format",
                    format: "url",
                    note: "Invalid URL format",
                    input: payload.value,
                    inst,
                    continue: !def.abort,
                });
                return;
            }
            if (url === URL_UNPARSEABLE) {
                payload.issues.push({
                    code: "invalid_format",
                    format: "url",
                    input: payload.value,
                    inst,
                    continue: !def.abort,
                });
                return;
            }
            if (url === true) {
                payload.value = stripTabAndNewline(trimmed);
                return;
            }
            if (def.hostname && !urlHostnameOk(url, def.hostname)) {
                payload.issues.push({
                    code: "invalid_format",
                    format: "url",
                    note: "Invalid hostname",
                    pattern: def.hostname.source,
                    input: payload.value,
                    inst,
                    continue: !def.abort,
                });
            }
            if (def.protocol && !urlProtocolOk(url, def.protocol)) {
                payload.issues.push({
                    code: "invalid_format",
                    format: "url",
                    note: "Invalid protocol",
                    pattern: def.protocol.source,
                    input: payload.value,
                    inst,
                    continue: !def.abort,
                });
            }
            // Set the output value based on normalize flag
            payload.value = def.normalize ? url.href : stripTabAndNewline(trimmed);
            return;
        }
        catch (_) {
            payload.issues.push({
                code: "invalid_format",
                format: "url",
                input: payload.value,
                inst,
                continue: !def.abort,
            });
        }
    };
});
const $ZodEmoji = /*@__PURE__*/ $constructor("$ZodEmoji", (inst, def) => {
    def.pattern ?? (def.pattern = emoji());
    $ZodStringFormat.init(inst, def);
});
const $ZodNanoID = /*@__PURE__*/ $constructor("$ZodNanoID", (inst, def) => {
    if (def.length !== undefined && (!Number.isInteger(def.length) || def.length < 1))
        throw new Error(`Invalid nanoid length: ${def.length}`);
    def.pattern ?? (def.pattern = def.length === undefined ? nanoid : nanoidOfLength(def.length));
    $ZodStringFormat.init(inst, def);
});
/**
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link $ZodCUID2} instead.
 * See https://github.com/paralleldrive/cuid.
 */
const $ZodCUID = /*@__PURE__*/ $constructor("$ZodCUID", (inst, def) => {
    def.pattern ?? (def.pattern = cuid);
    $ZodStringFormat.init(inst, def);
});
const $ZodCUID2 = /*@__PURE__*/ $constructor("$ZodCUID2", (inst, def) => {
    def.pattern ?? (def.pattern = cuid2);
    $ZodStringFormat.init(inst, def);
});
const $ZodULID = /*@__PURE__*/ $constructor("$ZodULID", (inst, def) => {
    def.pattern ?? (def.pattern = ulid);
    $ZodStringFormat.init(inst, def);
});
const $ZodXID = /*@__PURE__*/ $constructor("$ZodXID", (inst, def) => {
    def.pattern ?? (def.pattern = xid);
    $ZodStringFormat.init(inst, def);
});
const $ZodKSUID = /*@__PURE__*/ $constructor("$ZodKSUID", (inst, def) => {
    def.pattern ?? (def.pattern = ksuid);
    $ZodStringFormat.init(inst, def);
});
const $ZodISODateTime = /*@__PURE__*/ $constructor("$ZodISODateTime", (inst, def) => {
    def.pattern ?? (def.pattern = datetime(def));
    $ZodStringFormat.init(inst, def);
});
const $ZodISODate = /*@__PURE__*/ $constructor("$ZodISODate", (inst, def) => {
    def.pattern ?? (def.pattern = date);
    $ZodStringFormat.init(inst, def);
});
const $ZodISOTime = /*@__PURE__*/ $constructor("$ZodISOTime", (inst, def) => {
    def.pattern ?? (def.pattern = time(def));
    $ZodStringFormat.init(inst, def);
});
const $ZodISODuration = /*@__PURE__*/ $constructor("$ZodISODuration", (inst, def) => {
    def.pattern ?? (def.pattern = duration);
    $ZodStringFormat.init(inst, def);
});
const $ZodIPv4 = /*@__PURE__*/ $constructor("$ZodIPv4", (inst, def) => {
    def.pattern ?? (def.pattern = ipv4);
    $ZodStringFormat.init(inst, def);
});
/** An IPv6 address is written with hex digits, colons and dots, and nothing else. The guard is what makes the check below an IPv6 check: `new URL("http://[...]")` parses an authority, not an address, so `@` and `\` re-delimit it and `"::@1\\"` validates against the host `0.0.0.1`. The URL parser also deletes ASCII tab, LF and CR rather than failing, which is how `"::1\n"` validated as `::1`. */
const ipv6Alphabet = /^[0-9a-fA-F:.]+$/;
function isValidIPv6(value) {
    if (!ipv6Alphabet.test(value))
        return false;
    return canParseURL(`http://[${value}]`);
}
const $ZodIPv6 = /*@__PURE__*/ $constructor("$ZodIPv6", (inst, def) => {
    def.pattern ?? (def.pattern = ipv6);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (!isValidIPv6(payload.value)) {
            payload.issues.push({
                code: "invalid_format",
                format: "ipv6",
                input: payload.value,
                inst,
                continue: !def.abort,
            });
        }
    };
});
const $ZodMAC = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodMAC", (inst, def) => {
    def.pattern ?? (def.pattern = regexes.mac(def.delimiter));
    $ZodStringFormat.init(inst, def);
})));
const $ZodCIDRv4 = /*@__PURE__*/ $constructor("$ZodCIDRv4", (inst, def) => {
    def.pattern ?? (def.pattern = cidrv4);
    $ZodStringFormat.init(inst, def);
});
function isValidCIDRv6(value) {
    const parts = value.split("/");
    if (parts.length !== 2)
        return false;
    const [address, prefix] = parts;
    if (!prefix)
        return false;
    const prefixNum = Number(prefix);
    if (`${prefixNum}` !== prefix)
        return false;
    if (prefixNum < 0 || prefixNum > 128)
        return false;
    return isValidIPv6(address);
}
const $ZodCIDRv6 = /*@__PURE__*/ $constructor("$ZodCIDRv6", (inst, def) => {
    def.pattern ?? (def.pattern = cidrv6); // not used for validation
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (!isValidCIDRv6(payload.value)) {
            payload.issues.push({
                code: "invalid_format",
                format: "cidrv6",
                input: payload.value,
                inst,
                continue: !def.abort,
            });
        }
    };
});
//////////////////////////////   ZodBase64   //////////////////////////////
function isValidBase64(data) {
    if (data === "")
        return true;
    // atob ignores whitespace, so reject it up front.
    if (/\s/.test(data))
        return false;
    if (data.length % 4 !== 0)
        return false;
    try {
        // @ts-ignore
        atob(data);
        return true;
    }
    catch {
        return false;
    }
}
// lax on purpose: the quantified regexes.base64 overflows the regex stack on multi-MB input and its leading ^$| alternation leaks through template-literal composition; isValidBase64 enforces length and padding
const base64Charset = /^[0-9a-zA-Z+/]*={0,2}$/;
const $ZodBase64 = /*@__PURE__*/ $constructor("$ZodBase64", (inst, def) => {
    def.pattern ?? (def.pattern = base64Charset);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidBase64(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "base64",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
//////////////////////////////   ZodBase64URL   //////////////////////////////
// lax on purpose: the quantified regexes.base64url overflows the regex stack on multi-MB input; isValidBase64 enforces length on the padded string
const base64urlCharset = /^[A-Za-z0-9_-]*$/;
function isValidBase64URL(data) {
    if (!base64urlCharset.test(data))
        return false;
    const base64 = data.replace(/[-_]/g, (c) => (c === "-" ? "+" : "/"));
    const padded = base64.padEnd(Math.ceil(base64.length / 4) * 4, "=");
    return isValidBase64(padded);
}
const $ZodBase64URL = /*@__PURE__*/ $constructor("$ZodBase64URL", (inst, def) => {
    def.pattern ?? (def.pattern = base64urlCharset);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidBase64URL(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "base64url",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodE164 = /*@__PURE__*/ $constructor("$ZodE164", (inst, def) => {
    def.pattern ?? (def.pattern = e164);
    $ZodStringFormat.init(inst, def);
});
//////////////////////////////   ZodCreditCard   //////////////////////////////
const CC_SANITIZE = /[- ]/g;
/** Luhn checksum on a digit-only string. Adapted from valibot (MIT). */
function isLuhnAlgo(digits) {
    let length = digits.length;
    let bit = 1;
    let sum = 0;
    while (length) {
        const value = digits.charCodeAt(--length) - 48;
        bit ^= 1;
        sum += bit ? [0, 2, 4, 6, 8, 1, 3, 5, 7, 9][value] : value;
    }
    return sum % 10 === 0;
}
function isValidCreditCard(input) {
    if (!regexes.creditCard.test(input))
        return false;
    return isLuhnAlgo(input.replace(CC_SANITIZE, ""));
}
const $ZodCreditCard = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCreditCard", (inst, def) => {
    // Shape only — the Luhn check below is not expressible as a pattern, so consumers of `pattern` (JSON Schema, template literals) get the length and separator rules alone.
    def.pattern ?? (def.pattern = regexes.creditCard);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidCreditCard(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "credit_card",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
})));
//////////////////////////////   ZodIBAN   //////////////////////////////
// iso 7064 mod 97-10 checksum without BigInt
function isIso7064Mod97(iban) {
    let remainder = 0;
    const len = iban.length;
    for (let i = 4; i < len; i++) {
        const code = iban.charCodeAt(i);
        remainder = (code >= 65 ? remainder * 100 + (code - 55) : remainder * 10 + (code - 48)) % 97;
    }
    for (let i = 0; i < 4; i++) {
        const code = iban.charCodeAt(i);
        remainder = (code >= 65 ? remainder * 100 + (code - 55) : remainder * 10 + (code - 48)) % 97;
    }
    return remainder === 1;
}
function isValidIBAN(input) {
    if (!regexes.iban.test(input))
        return false;
    return isIso7064Mod97(input);
}
const $ZodIBAN = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodIBAN", (inst, def) => {
    // shape only — checksum is not expressible as a pattern
    def.pattern ?? (def.pattern = regexes.iban);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidIBAN(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "iban",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
})));
//////////////////////////////   ZodJWT   //////////////////////////////
function isValidJWT(token, algorithm = null) {
    try {
        const tokensParts = token.split(".");
        if (tokensParts.length !== 3)
            return false;
        const [header] = tokensParts;
        if (!header)
            return false;
        // @ts-ignore
        const parsedHeader = JSON.parse(atob(header));
        if ("typ" in parsedHeader && parsedHeader?.typ !== "JWT")
            return false;
        if (!parsedHeader.alg)
            return false;
        if (algorithm && (!("alg" in parsedHeader) || parsedHeader.alg !== algorithm))
            return false;
        return true;
    }
    catch {
        return false;
    }
}
const $ZodJWT = /*@__PURE__*/ $constructor("$ZodJWT", (inst, def) => {
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidJWT(payload.value, def.alg))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "jwt",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCustomStringFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCustomStringFormat", (inst, def) => {
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (def.fn(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: def.format,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodNumber = /*@__PURE__*/ $constructor("$ZodNumber", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = number;
    inst._zod.parse = (payload, _ctx) => {
        if (def.coerce)
            try {
                payload.value = Number(payload.value);
            }
            catch (_) { }
        const input = payload.value;
        if (typeof input === "number" && !Number.isNaN(input) && Number.isFinite(input)) {
            return payload;
        }
        const received = typeof input === "number"
            ? Number.isNaN(input)
                ? "NaN"
                : !Number.isFinite(input)
                    ? String(input)
                    : undefined
            : undefined;
        payload.issues.push({
            expected: "number",
            code: "invalid_type",
            input,
            inst,
            ...(received ? { received } : {}),
        });
        return payload;
    };
});
const $ZodNumberFormat = /*@__PURE__*/ $constructor("$ZodNumberFormat", (inst, def) => {
    $ZodCheckNumberFormat.init(inst, def);
    $ZodNumber.init(inst, def); // no format checks
});
const $ZodBoolean = /*@__PURE__*/ $constructor("$ZodBoolean", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = regexes_boolean;
    inst._zod.parse = (payload, _ctx) => {
        if (def.coerce)
            try {
                payload.value = Boolean(payload.value);
            }
            catch (_) { }
        const input = payload.value;
        if (typeof input === "boolean")
            return payload;
        payload.issues.push({
            expected: "boolean",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
});
const $ZodBigInt = /*@__PURE__*/ $constructor("$ZodBigInt", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = bigint;
    inst._zod.parse = (payload, _ctx) => {
        if (def.coerce)
            try {
                payload.value = BigInt(payload.value);
            }
            catch (_) { }
        if (typeof payload.value === "bigint")
            return payload;
        payload.issues.push({
            expected: "bigint",
            code: "invalid_type",
            input: payload.value,
            inst,
        });
        return payload;
    };
});
const $ZodBigIntFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodBigIntFormat", (inst, def) => {
    checks.$ZodCheckBigIntFormat.init(inst, def);
    $ZodBigInt.init(inst, def); // no format checks
})));
const $ZodSymbol = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodSymbol", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (typeof input === "symbol")
            return payload;
        payload.issues.push({
            expected: "symbol",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodUndefined = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodUndefined", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = regexes.undefined;
    inst._zod.values = new Set([undefined]);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (typeof input === "undefined")
            return payload;
        payload.issues.push({
            expected: "undefined",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodNull = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodNull", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = regexes.null;
    inst._zod.values = new Set([null]);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (input === null)
            return payload;
        payload.issues.push({
            expected: "null",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodAny = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodAny", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload) => payload;
})));
const $ZodUnknown = /*@__PURE__*/ $constructor("$ZodUnknown", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload) => payload;
});
const $ZodNever = /*@__PURE__*/ $constructor("$ZodNever", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        payload.issues.push({
            expected: "never",
            code: "invalid_type",
            input: payload.value,
            inst,
        });
        return payload;
    };
});
const $ZodVoid = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodVoid", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (typeof input === "undefined")
            return payload;
        payload.issues.push({
            expected: "void",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodDate = /*@__PURE__*/ $constructor("$ZodDate", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        if (def.coerce) {
            try {
                payload.value = new Date(payload.value);
            }
            catch (_err) { }
        }
        const input = payload.value;
        const isDate = input instanceof Date;
        const isValidDate = isDate && !Number.isNaN(input.getTime());
        if (isValidDate)
            return payload;
        payload.issues.push({
            expected: "date",
            code: "invalid_type",
            input,
            ...(isDate ? { received: "Invalid Date" } : {}),
            inst,
        });
        return payload;
    };
});
// an oversized container fails its leading size checks before any element is parsed
function capSize(inst, size) {
    const caps = sizeCaps(inst._zod.def.checks);
    if (!caps.length)
        return;
    const cap = Math.min(...caps.map((c) => c[0]));
    const parse = inst._zod.parse;
    inst._zod.parse = (payload, ctx) => {
        const n = size(payload.value);
        if (n > cap && !ctx?.skipChecks && ctx?.direction !== "backward") {
            for (const [max, ch] of sizeCaps(inst._zod.def.checks)) {
                if (n > max && ch._zod.def.when(payload)) {
                    const start = payload.issues.length;
                    ch._zod.check(payload);
                    // the value is still the raw input, so no later check may read it
                    payload.issues[start].continue = false;
                    attachSchema(payload.issues, start, inst);
                    return payload;
                }
            }
        }
        return parse(payload, ctx);
    };
}
const arraySize = (input) => (Array.isArray(input) ? input.length : -1);
const mapSize = (input) => (input instanceof Map ? input.size : -1);
const setSize = (input) => (input instanceof Set ? input.size : -1);
function handleArrayResult(result, final, index) {
    if (result.issues.length) {
        final.issues.push(...prefixIssues(index, result.issues));
    }
    final.value[index] = result.value;
}
const $ZodArray = /*@__PURE__*/ $constructor("$ZodArray", (inst, def) => {
    $ZodType.init(inst, def);
    const memo = globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!Array.isArray(input)) {
            payload.issues.push({
                expected: "array",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        payload.value = memo ? memo.alloc(inst, payload, Array(input.length), ctx) : Array(input.length);
        const proms = [];
        const abortEarly = ctx?.abortEarly;
        for (let i = 0; i < input.length; i++) {
            const item = input[i];
            const result = def.element._zod.run({
                value: item,
                issues: [],
            }, ctx);
            if (result instanceof Promise) {
                proms.push(result.then((result) => handleArrayResult(result, payload, i)));
            }
            else {
                handleArrayResult(result, payload, i);
                // the element's payload is authoritative here, since handleArrayResult forwards every issue; an object's is not, because it drops a failed absent optional
                if (abortEarly && result.issues.length !== 0 && aborted(result))
                    break;
            }
        }
        if (proms.length) {
            return Promise.all(proms).then(() => payload);
        }
        return payload; //handleArrayResultsAsync(parseResults, final);
    };
    capSize(inst, arraySize);
});
function handlePropertyResult(result, final, key, input, optin, optout) {
    const isPresent = key in input;
    const isOptionalOut = optout === "optional";
    // The middle rung means "absence permitted, nothing supplied in its place", so an absent key contributes nothing — whatever the schema made of `undefined` is invented, not substituted. Only `optional` reaches this with a value: `defaulted` substitutes, and a schema that isn't optional-out has to keep the key.
    if (!isPresent && isOptionalOut && optin === "optional") {
        return;
    }
    if (result.issues.length) {
        // For optional-in/out schemas, ignore errors on absent keys.
        if (optin !== undefined && isOptionalOut && !isPresent) {
            return;
        }
        final.issues.push(...prefixIssues(key, result.issues));
    }
    if (!isPresent && optin === undefined) {
        if (!result.issues.length) {
            final.issues.push({
                code: "invalid_type",
                expected: "nonoptional",
                input: undefined,
                path: [key],
            });
        }
        return;
    }
    if (result.value === undefined) {
        if (isPresent || (optin === "defaulted" && !isOptionalOut)) {
            final.value[key] = undefined;
        }
    }
    else {
        final.value[key] = result.value;
    }
}
// one shared instance; a fresh [] per schema cost 56 bytes retained
const NO_SYMBOL_KEYS = [];
function normalizeDef(def) {
    const keys = Object.keys(def.shape);
    const ownSymbols = Object.getOwnPropertySymbols(def.shape);
    const symbolKeys = ownSymbols.length ? ownSymbols : NO_SYMBOL_KEYS;
    // aliases `keys` when there are no symbols, so a string-only shape keeps one array
    const allKeys = symbolKeys.length ? [...keys, ...symbolKeys] : keys;
    for (const k of allKeys) {
        if (!def.shape?.[k]?._zod?.traits?.has("$ZodType")) {
            throw new Error(`Invalid element at key "${String(k)}": expected a Zod schema`);
        }
    }
    const okeys = optionalKeys(def.shape);
    return {
        ...def,
        allKeys,
        symbolKeys,
        // string-only: handleCatchall matches it against `for...in`, which never yields a symbol
        keySet: new Set(keys),
        numKeys: keys.length,
        optionalKeys: new Set(okeys),
    };
}
function handleCatchall(proms, input, payload, ctx, def, inst, abortEarly) {
    const unrecognized = [];
    const keySet = def.keySet;
    const _catchall = def.catchall._zod;
    const t = _catchall.def.type;
    const optin = _catchall.optin;
    const optout = _catchall.optout;
    // starts at 0, not the current length: the shape phase already ran and may have aborted
    let seen = 0;
    for (const key in input) {
        if (abortEarly && payload.issues.length !== seen) {
            if (aborted(payload, seen))
                break;
            seen = payload.issues.length;
        }
        // Must precede the __proto__ branch: a declared key is not unrecognized, even though the shape loop deliberately strips __proto__ from the parsed output.
        if (keySet.has(key))
            continue;
        // Don't copy an undeclared __proto__ into the result; assignment to a plain {} would replace the result prototype. But in strict mode it is still an unknown key, so report it before skipping.
        if (key === "__proto__") {
            if (t === "never")
                unrecognized.push(key);
            continue;
        }
        if (t === "never") {
            unrecognized.push(key);
            continue;
        }
        const r = _catchall.run({ value: input[key], issues: [] }, ctx);
        if (r instanceof Promise) {
            proms.push(r.then((r) => handlePropertyResult(r, payload, key, input, optin, optout)));
        }
        else {
            handlePropertyResult(r, payload, key, input, optin, optout);
        }
    }
    if (unrecognized.length) {
        payload.issues.push({
            code: "unrecognized_keys",
            keys: unrecognized,
            input,
            inst,
            // Describes the shape of the input, not the validity of the parsed value, so it never aborts. The parse still fails; the schema's own checks just get to run first, and an enclosing intersection can reconcile the key against a sibling operand.
            continue: true,
        });
    }
    if (!proms.length)
        return payload;
    return Promise.all(proms).then(() => {
        return payload;
    });
}
const $ZodObject = /*@__PURE__*/ $constructor("$ZodObject", (inst, def) => {
    // requires cast because technically $ZodObject doesn't extend
    $ZodType.init(inst, def);
    const desc = Object.getOwnPropertyDescriptor(def, "shape");
    // a cloned def carries its source's accessor, which knows the shape it answers from; adopting that keeps the clone's keys readable without running it
    const sh = desc?.get ? desc.get.raw : (def.shape ?? {});
    if (sh) {
        // Freezes the shape on first read, so its getters resolve once and every later read sees the same schemas.
        const get = () => {
            const newSh = { ...sh };
            Object.defineProperty(def, "shape", { value: newSh });
            get.raw = newSh;
            return newSh;
        };
        get.raw = sh;
        Object.defineProperty(def, "shape", { get });
    }
    const _normalized = cached(() => normalizeDef(def));
    defineLazyInternal(inst, "propValues", (zod) => {
        const shape = zod.def.shape;
        const propValues = {};
        for (const key in shape) {
            const field = shape[key]._zod;
            if (field.values) {
                if (!Object.prototype.hasOwnProperty.call(propValues, key)) {
                    util_assignProp(propValues, key, new Set());
                }
                for (const v of field.values)
                    propValues[key].add(v);
                // An omittable slot reads back as undefined at a discriminator lookup, so it has to claim undefined: two options that can both omit the key are not discriminable on it.
                if (field.optin !== undefined)
                    propValues[key].add(undefined);
            }
        }
        return propValues;
    });
    const isObject = util_isObject;
    const catchall = def.catchall;
    let value;
    const memo = globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        value ?? (value = _normalized.value);
        const input = payload.value;
        if (!isObject(input)) {
            payload.issues.push({
                expected: "object",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
        const proms = [];
        const shape = value.shape;
        const abortEarly = ctx?.abortEarly;
        let seen = payload.issues.length;
        for (const key of value.allKeys) {
            if (abortEarly && payload.issues.length !== seen) {
                if (aborted(payload, seen))
                    break;
                seen = payload.issues.length;
            }
            if (key === "__proto__")
                continue;
            const el = shape[key];
            const optin = el._zod.optin;
            const optout = el._zod.optout;
            const r = el._zod.run({ value: input[key], issues: [] }, ctx);
            if (r instanceof Promise) {
                proms.push(r.then((r) => handlePropertyResult(r, payload, key, input, optin, optout)));
            }
            else {
                handlePropertyResult(r, payload, key, input, optin, optout);
            }
        }
        if (!catchall) {
            return proms.length ? Promise.all(proms).then(() => payload) : payload;
        }
        return handleCatchall(proms, input, payload, ctx, _normalized.value, inst, abortEarly === true);
    };
});
const $ZodObjectJIT = /*@__PURE__*/ $constructor("$ZodObjectJIT", (inst, def) => {
    // requires cast because technically $ZodObject doesn't extend
    $ZodObject.init(inst, def);
    const superParse = inst._zod.parse;
    const _normalized = cached(() => normalizeDef(def));
    const memo = globalConfig.memoizer;
    const generateFastpass = (shape) => {
        const normalized = _normalized.value;
        const syms = normalized.symbolKeys;
        // a symbol has no source literal, so it is read as `syms[i]` off the closed-over scope
        const doc = new Doc(["payload", "ctx"], { shape, inst, memo, syms });
        const parseStr = (k) => `shape[${k}]._zod.run({ value: input[${k}], issues: [] }, ctx)`;
        // prefixes in place, like util.prefixIssues. newResult must land before the early return: a catchall runs after this and would otherwise write onto the caller's input
        const prefixStr = (id, k) => `
          let ${id}_ab = false;
          for (let i = 0; i < ${id}.issues.length; i++) {
            const iss = ${id}.issues[i];
            iss.path = iss.path ? [${k}, ...iss.path] : [${k}];
            payload.issues.push(iss);
            if (iss.continue !== true) ${id}_ab = true;
          }
          if (${id}_ab && ctx && ctx.abortEarly) {
            payload.value = newResult;
            return payload;
          }`;
        doc.write(`const input = payload.value;`);
        const ids = Object.create(null);
        let counter = 0;
        for (const key of normalized.allKeys) {
            ids[key] = `key_${counter++}`;
        }
        // A: preserve key order {
        doc.write(memo ? `const newResult = memo.alloc(inst, payload, {}, ctx);` : `const newResult = {};`);
        for (const key of normalized.allKeys) {
            if (key === "__proto__")
                continue;
            const id = ids[key];
            const k = typeof key === "symbol" ? `syms[${syms.indexOf(key)}]` : esc(key);
            const isPresent = `${k} in input`;
            const schema = shape[key];
            const optin = schema?._zod?.optin;
            const isOptionalIn = optin !== undefined;
            const isOptionalOut = schema?._zod?.optout === "optional";
            doc.write(`const ${id} = ${parseStr(k)};`);
            if (isOptionalIn && isOptionalOut) {
                // For optional-in/out schemas, ignore errors on absent keys — and, like the interpreted path, drop the value produced alongside them. The middle rung goes further: it permits absence without supplying anything in its place, so an absent key contributes nothing at all.
                const assign = optin === "optional" ? `${id}_present` : `${id}.value !== undefined || ${id}_present`;
                doc.write(`
        const ${id}_present = ${isPresent};
        if (!${id}.issues.length || ${id}_present) {
          if (${id}.issues.length) {${prefixStr(id, k)}
          }

          if (${assign}) {
            newResult[${k}] = ${id}.value;
          }
        }

      `);
            }
            else if (!isOptionalIn) {
                doc.write(`
        const ${id}_present = ${isPresent};
        if (${id}.issues.length) {${prefixStr(id, k)}
        }
        if (!${id}_present && !${id}.issues.length) {
          payload.issues.push({
            code: "invalid_type",
            expected: "nonoptional",
            input: undefined,
            path: [${k}]
          });
          if (ctx && ctx.abortEarly) {
            payload.value = newResult;
            return payload;
          }
        }

        if (${id}_present) {
          newResult[${k}] = ${id}.value;
        }

      `);
            }
            else {
                doc.write(`
        if (${id}.issues.length) {${prefixStr(id, k)}
        }
      `);
                if (optin === "defaulted") {
                    doc.write(`newResult[${k}] = ${id}.value;`);
                }
                else {
                    doc.write(`
        if (${id}.value !== undefined || ${isPresent}) {
          newResult[${k}] = ${id}.value;
        }
      `);
                }
            }
        }
        doc.write(`payload.value = newResult;`);
        doc.write(`return payload;`);
        // closing `shape` in is what pays: turbofan specializes the parser against that one shape object, so every `shape[k]._zod.run` folds to a known callee. as a parameter it stays a generic load and measures 13% slower even with the forwarding frame gone
        return doc.compile();
    };
    let fastpass;
    const isObject = util_isObject;
    const jit = !globalConfig.jitless;
    const allowsEval = util_allowsEval;
    const fastEnabled = jit && allowsEval.value; // && !def.catchall;
    const catchall = def.catchall;
    let value;
    inst._zod.parse = (payload, ctx) => {
        value ?? (value = _normalized.value);
        const input = payload.value;
        if (!isObject(input)) {
            payload.issues.push({
                expected: "object",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        if (jit && fastEnabled && ctx?.async === false && ctx.jitless !== true) {
            // always synchronous
            if (!fastpass)
                fastpass = generateFastpass(def.shape);
            payload = fastpass(payload, ctx);
            if (!catchall)
                return payload;
            return handleCatchall([], input, payload, ctx, value, inst, ctx?.abortEarly === true);
        }
        return superParse(payload, ctx);
    };
});
function handleUnionResults(results, final, inst, ctx) {
    for (const result of results) {
        if (result.issues.length === 0) {
            final.value = result.value;
            return final;
        }
    }
    const nonaborted = results.filter((r) => !aborted(r));
    if (nonaborted.length === 1) {
        final.value = nonaborted[0].value;
        return nonaborted[0];
    }
    final.issues.push({
        code: "invalid_union",
        input: final.value,
        inst,
        errors: results.map((result) => result.issues.map((iss) => finalizeIssue(iss, ctx, config()))),
    });
    return final;
}
const $ZodUnion = /*@__PURE__*/ $constructor("$ZodUnion", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "optin", (zod) => zod.def.options.some((o) => o._zod.optin === "defaulted")
        ? "defaulted"
        : zod.def.options.some((o) => o._zod.optin !== undefined)
            ? "optional"
            : undefined);
    defineLazyInternal(inst, "optout", (zod) => zod.def.options.some((o) => o._zod.optout === "optional") ? "optional" : undefined);
    defineLazyInternal(inst, "values", (zod) => {
        if (zod.def.options.every((o) => o._zod.values)) {
            return new Set(zod.def.options.flatMap((option) => Array.from(option._zod.values)));
        }
        return undefined;
    });
    defineLazyInternal(inst, "pattern", (zod) => {
        if (zod.def.options.every((o) => o._zod.pattern)) {
            const patterns = zod.def.options.map((o) => o._zod.pattern);
            return new RegExp(`^(${patterns.map((p) => cleanRegex(p.source)).join("|")})$`);
        }
        return undefined;
    });
    const first = def.options.length === 1 ? def.options[0]._zod.run : null;
    inst._zod.parse = (payload, ctx) => {
        if (first) {
            return first(payload, ctx);
        }
        let async = false;
        const results = [];
        for (const option of def.options) {
            const result = option._zod.run({
                value: payload.value,
                issues: [],
            }, ctx);
            if (result instanceof Promise) {
                results.push(result);
                async = true;
            }
            else {
                if (result.issues.length === 0)
                    return result;
                results.push(result);
            }
        }
        if (!async)
            return handleUnionResults(results, payload, inst, ctx);
        return Promise.all(results).then((results) => {
            return handleUnionResults(results, payload, inst, ctx);
        });
    };
});
function handleExclusiveUnionResults(results, final, inst, ctx) {
    const matches = [];
    for (let i = 0; i < results.length; i++) {
        if (results[i].issues.length === 0)
            matches.push(i);
    }
    if (matches.length === 1) {
        final.value = results[matches[0]].value;
        return final;
    }
    if (matches.length === 0) {
        // No matches - same as regular union
        final.issues.push({
            code: "invalid_union",
            input: final.value,
            inst,
            errors: results.map((result) => result.issues.map((iss) => util.finalizeIssue(iss, ctx, core.config()))),
        });
    }
    else {
        // Multiple matches - exclusive union failure
        final.issues.push({
            code: "invalid_union",
            input: final.value,
            inst,
            errors: [],
            inclusive: false,
            matches,
        });
    }
    return final;
}
const $ZodXor = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodXor", (inst, def) => {
    $ZodUnion.init(inst, def);
    def.inclusive = false;
    const first = def.options.length === 1 ? def.options[0]._zod.run : null;
    inst._zod.parse = (payload, ctx) => {
        if (first) {
            return first(payload, ctx);
        }
        let async = false;
        const results = [];
        for (const option of def.options) {
            const result = option._zod.run({
                value: payload.value,
                issues: [],
            }, ctx);
            if (result instanceof Promise) {
                results.push(result);
                async = true;
            }
            else {
                results.push(result);
            }
        }
        if (!async)
            return handleExclusiveUnionResults(results, payload, inst, ctx);
        return Promise.all(results).then((results) => {
            return handleExclusiveUnionResults(results, payload, inst, ctx);
        });
    };
})));
/** Returns the option whose discriminator claims `value`, or throws if ambiguous. */
function getDiscriminatedOption(union, value) {
    const internals = union._zod;
    let map = internals.bag.optionsMap;
    if (!map) {
        map = discriminatorMap(internals.def);
        internals.bag.optionsMap = map;
    }
    const option = map.get(value);
    if (option === null)
        throw new Error(`Ambiguous discriminator value "${String(value)}"`);
    return option;
}
function discriminatorMap(def) {
    const map = new Map();
    for (const option of def.options) {
        const values = option._zod.propValues?.[def.discriminator];
        if (!values || values.size === 0)
            throw new Error(`Invalid discriminated union option at index "${def.options.indexOf(option)}"`);
        for (const value of values) {
            if (map.has(value)) {
                if (value !== undefined)
                    throw new Error(`Duplicate discriminator value "${String(value)}"`);
                // keep the collision marked so a later member cannot reclaim it
                map.set(value, null);
            }
            else {
                map.set(value, option);
            }
        }
    }
    return map;
}
const $ZodDiscriminatedUnion = 
/*@__PURE__*/
(/* unused pure expression or super */ null && (core.$constructor("$ZodDiscriminatedUnion", (inst, def) => {
    def.inclusive = false;
    $ZodUnion.init(inst, def);
    const _super = inst._zod.parse;
    util.defineLazyInternal(inst, "propValues", (zod) => {
        const propValues = {};
        let undefinedCount = 0;
        for (const option of zod.def.options) {
            const pv = option._zod.propValues;
            if (!pv || Object.keys(pv).length === 0)
                throw new Error(`Invalid discriminated union option at index "${zod.def.options.indexOf(option)}"`);
            if (pv[zod.def.discriminator]?.has(undefined))
                undefinedCount++;
            for (const [k, v] of Object.entries(pv)) {
                if (!Object.prototype.hasOwnProperty.call(propValues, k)) {
                    util.assignProp(propValues, k, new Set());
                }
                for (const val of v) {
                    propValues[k].add(val);
                }
            }
        }
        if (!zod.def.unionFallback && undefinedCount > 1)
            propValues[zod.def.discriminator]?.delete(undefined);
        return propValues;
    });
    // Checked now rather than in the lookup map below, so an option that lacks the discriminator fails at the `discriminatedUnion` call instead of on the first object parsed. Options whose shape cannot be enumerated without resolving it — pipes and lazies — are left to the map.
    def.options.forEach((option, i) => {
        const propShape = util.rawShape(option._zod.def);
        if (propShape && !Object.prototype.hasOwnProperty.call(propShape, def.discriminator)) {
            throw new Error(`Invalid discriminated union option at index "${i}"`);
        }
    });
    const disc = util.cached(() => discriminatorMap(def));
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!util.isObject(input)) {
            payload.issues.push({
                code: "invalid_type",
                expected: "object",
                input,
                inst,
            });
            return payload;
        }
        const value = input?.[def.discriminator];
        const opt = disc.value.get(value);
        // forward metadata cannot choose an encoder for an absent tag
        if (opt && (value !== undefined || ctx.direction !== "backward")) {
            return opt._zod.run(payload, ctx);
        }
        // Fall back to union matching when the fast discriminator path fails:
        // - explicitly enabled via unionFallback, or
        // - during backward direction (encode), since codec-based discriminators have different values in forward vs backward directions
        if (def.unionFallback || ctx.direction === "backward") {
            return _super(payload, ctx);
        }
        // no matching discriminator
        payload.issues.push({
            code: "invalid_union",
            errors: [],
            note: "No matching discriminator",
            discriminator: def.discriminator,
            options: Array.from(disc.value.keys()).filter((value) => disc.value.get(value) !== null),
            input,
            path: [def.discriminator],
            inst,
        });
        return payload;
    };
})));
const $ZodIntersection = /*@__PURE__*/ $constructor("$ZodIntersection", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        const left = def.left._zod.run({ value: input, issues: [] }, ctx);
        const right = def.right._zod.run({ value: input, issues: [] }, ctx);
        const async = left instanceof Promise || right instanceof Promise;
        if (async) {
            return Promise.all([left, right]).then(([left, right]) => {
                return handleIntersectionResults(payload, left, right);
            });
        }
        return handleIntersectionResults(payload, left, right);
    };
});
function mergeValues(a, b) {
    // const aType = parse.t(a);
    // const bType = parse.t(b);
    if (a === b) {
        return { valid: true, data: a };
    }
    if (a instanceof Date && b instanceof Date && +a === +b) {
        return { valid: true, data: a };
    }
    if (isPlainObject(a) && isPlainObject(b)) {
        const bKeys = Object.keys(b);
        const sharedKeys = Object.keys(a).filter((key) => bKeys.indexOf(key) !== -1);
        const newObj = { ...a, ...b };
        if (Object.prototype.hasOwnProperty.call(newObj, "__proto__"))
            delete newObj.__proto__;
        for (const key of sharedKeys) {
            if (key === "__proto__")
                continue;
            const sharedValue = mergeValues(a[key], b[key]);
            if (!sharedValue.valid) {
                return {
                    valid: false,
                    mergeErrorPath: [key, ...sharedValue.mergeErrorPath],
                };
            }
            newObj[key] = sharedValue.data;
        }
        return { valid: true, data: newObj };
    }
    if (Array.isArray(a) && Array.isArray(b)) {
        if (a.length !== b.length) {
            return { valid: false, mergeErrorPath: [] };
        }
        const newArray = [];
        for (let index = 0; index < a.length; index++) {
            const itemA = a[index];
            const itemB = b[index];
            const sharedValue = mergeValues(itemA, itemB);
            if (!sharedValue.valid) {
                return {
                    valid: false,
                    mergeErrorPath: [index, ...sharedValue.mergeErrorPath],
                };
            }
            newArray.push(sharedValue.data);
        }
        return { valid: true, data: newArray };
    }
    return { valid: false, mergeErrorPath: [] };
}
function handleIntersectionResults(result, left, right) {
    // Track which side(s) reject each key. A key rejection is reported only when BOTH sides reject it, so a key owned by one branch survives the other's key schema. strictObject reports these as unrecognized_keys; a record with an open key schema reports one invalid_key per key.
    const unrecKeys = new Map();
    let unrecIssue;
    const keyIssues = new Map();
    const collect = (iss, side) => {
        let keys;
        if (iss.code === "unrecognized_keys" && !iss.path?.length) {
            unrecIssue ?? (unrecIssue = iss);
            keys = iss.keys;
        }
        else if (iss.code === "invalid_key" && iss.origin === "record" && iss.path?.length === 1) {
            const k = String(iss.path[0]);
            if (!keyIssues.has(k))
                keyIssues.set(k, iss);
            keys = [k];
        }
        else {
            return false;
        }
        for (const k of keys) {
            if (!unrecKeys.has(k))
                unrecKeys.set(k, {});
            unrecKeys.get(k)[side] = true;
        }
        return true;
    };
    for (const iss of left.issues) {
        if (!collect(iss, "l"))
            result.issues.push(iss);
    }
    for (const iss of right.issues) {
        if (!collect(iss, "r"))
            result.issues.push(iss);
    }
    // Report only keys rejected by BOTH sides
    const bothKeys = [...unrecKeys].filter(([, f]) => f.l && f.r).map(([k]) => k);
    if (bothKeys.length) {
        const aggregated = unrecIssue ? bothKeys.filter((k) => unrecIssue.keys.includes(k)) : [];
        if (aggregated.length)
            result.issues.push({ ...unrecIssue, keys: aggregated });
        for (const k of bothKeys) {
            if (!aggregated.includes(k) && keyIssues.has(k))
                result.issues.push(keyIssues.get(k));
        }
    }
    const merged = mergeValues(left.value, right.value);
    if (!merged.valid) {
        if (aborted(result))
            return result;
        throw new Error(`Unmergable intersection. Error path: ` + `${JSON.stringify(merged.mergeErrorPath)}`);
    }
    result.value = merged.data;
    return result;
}
const $ZodTuple = /*@__PURE__*/ $constructor("$ZodTuple", (inst, def) => {
    $ZodType.init(inst, def);
    const items = def.items;
    const memo = globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!Array.isArray(input)) {
            payload.issues.push({
                input,
                inst,
                expected: "tuple",
                code: "invalid_type",
            });
            return payload;
        }
        payload.value = memo ? memo.alloc(inst, payload, [], ctx) : [];
        const proms = [];
        const optinStart = getTupleOptStart(items, "optin");
        const optoutStart = getTupleOptStart(items, "optout");
        if (!def.rest) {
            if (input.length < optinStart) {
                payload.issues.push({
                    code: "too_small",
                    minimum: optinStart,
                    inclusive: true,
                    input,
                    inst,
                    origin: "array",
                });
                return payload;
            }
            if (input.length > items.length) {
                payload.issues.push({
                    code: "too_big",
                    maximum: items.length,
                    inclusive: true,
                    input,
                    inst,
                    origin: "array",
                });
            }
        }
        // Run every item in parallel, collecting results into an indexed array. The post-processing in `handleTupleResults` walks them in order so it can decide whether an absent optional-output error can truncate the tail or must be reported to preserve required output.
        const itemResults = new Array(items.length);
        // only tracked when there is a rest loop to skip
        const abortEarly = def.rest ? ctx?.abortEarly : undefined;
        let itemAborted = false;
        for (let i = 0; i < items.length; i++) {
            const r = items[i]._zod.run({ value: input[i], issues: [] }, ctx);
            if (r instanceof Promise) {
                proms.push(r.then((rr) => {
                    itemResults[i] = rr;
                }));
            }
            else {
                itemResults[i] = r;
                if (abortEarly && !itemAborted && r.issues.length)
                    itemAborted = aborted(r);
            }
        }
        // sound because rest is non-empty exactly when every fixed index is present, the one case handleTupleResults cannot discard an item's issues
        if (def.rest && !itemAborted) {
            let i = items.length - 1;
            const rest = input.slice(items.length);
            let seen = payload.issues.length;
            for (const el of rest) {
                if (abortEarly && payload.issues.length !== seen) {
                    if (aborted(payload, seen))
                        break;
                    seen = payload.issues.length;
                }
                i++;
                const result = def.rest._zod.run({ value: el, issues: [] }, ctx);
                if (result instanceof Promise) {
                    proms.push(result.then((r) => handleTupleResult(r, payload, i)));
                }
                else {
                    handleTupleResult(result, payload, i);
                }
            }
        }
        if (proms.length) {
            return Promise.all(proms).then(() => handleTupleResults(itemResults, payload, items, input, optoutStart));
        }
        return handleTupleResults(itemResults, payload, items, input, optoutStart);
    };
});
function getTupleOptStart(items, key) {
    for (let i = items.length - 1; i >= 0; i--) {
        // optin is a three-rung ladder so any rung above `undefined` permits an absent slot; optout stays two-valued.
        const omittable = key === "optin" ? items[i]._zod.optin !== undefined : items[i]._zod.optout === "optional";
        if (!omittable)
            return i + 1;
    }
    return 0;
}
function handleTupleResult(result, final, index) {
    if (result.issues.length) {
        final.issues.push(...prefixIssues(index, result.issues));
    }
    final.value[index] = result.value;
}
function handleTupleResults(itemResults, final, items, input, optoutStart) {
    // Walk results in order. Mirror $ZodObject's swallow-on-absent-optional rule, but only after `optoutStart`: the first index where the output tuple tail can be absent.
    for (let i = 0; i < items.length; i++) {
        const r = itemResults[i];
        const isPresent = i < input.length;
        // The array analog of `handlePropertyResult`'s absent-key early return: the middle rung permits absence without supplying anything in its place, so the tail truncates here instead of materializing whatever the item made of `undefined`.
        if (!isPresent && i >= optoutStart && items[i]._zod.optin === "optional") {
            final.value.length = i;
            break;
        }
        if (r.issues.length) {
            if (!isPresent && i >= optoutStart) {
                final.value.length = i;
                break;
            }
            final.issues.push(...prefixIssues(i, r.issues));
        }
        final.value[i] = r.value;
    }
    // Drop trailing slots that produced `undefined` for absent input
    // (the array analog of an absent optional key on an object). The
    // `i >= input.length` floor is critical: an explicit `undefined`
    // *inside* the input must be preserved even when the schema is
    // optional-out (e.g. `z.string().or(z.undefined())` accepting an
    // explicit undefined value).
    for (let i = final.value.length - 1; i >= input.length; i--) {
        if (items[i]._zod.optout === "optional" && final.value[i] === undefined) {
            final.value.length = i;
        }
        else {
            break;
        }
    }
    return final;
}
const $ZodRecord = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodRecord", (inst, def) => {
    $ZodType.init(inst, def);
    const memo = core.globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!util.isPlainObject(input)) {
            payload.issues.push({
                expected: "record",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        // no guard in either loop below: a record's invalid_key aborts but an enclosing intersection can reconcile it, so a stopped loop hides keys the sibling does not own and the intersection then rejects nothing
        const proms = [];
        const values = def.keyType._zod.values;
        if (values && !def.partial) {
            payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
            const recordKeys = new Set();
            for (const key of values) {
                if (typeof key === "string" || typeof key === "number" || typeof key === "symbol") {
                    recordKeys.add(typeof key === "number" ? key.toString() : key);
                    // A declared __proto__ is stripped but is not an unrecognized key.
                    if (key === "__proto__")
                        continue;
                    const keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
                    if (keyResult instanceof Promise) {
                        throw new Error("Async schemas not supported in object keys currently");
                    }
                    if (keyResult.issues.length) {
                        payload.issues.push({
                            code: "invalid_key",
                            origin: "record",
                            issues: keyResult.issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())),
                            input: key,
                            path: [key],
                            inst,
                        });
                        continue;
                    }
                    const outKey = keyResult.value;
                    if (outKey === "__proto__")
                        continue;
                    const result = def.valueType._zod.run({ value: input[key], issues: [] }, ctx);
                    if (result instanceof Promise) {
                        proms.push(result.then((result) => {
                            if (result.issues.length) {
                                payload.issues.push(...util.prefixIssues(key, result.issues));
                            }
                            payload.value[outKey] = result.value;
                        }));
                    }
                    else {
                        if (result.issues.length) {
                            payload.issues.push(...util.prefixIssues(key, result.issues));
                        }
                        payload.value[outKey] = result.value;
                    }
                }
            }
            let unrecognized;
            for (const key in input) {
                if (!recordKeys.has(key)) {
                    if (def.mode === "loose") {
                        // skip __proto__ so it can't replace the result prototype via the assignment setter on the plain {} we build into
                        if (key === "__proto__")
                            continue;
                        payload.value[key] = input[key];
                    }
                    else {
                        unrecognized = unrecognized ?? [];
                        unrecognized.push(key);
                    }
                }
            }
            if (unrecognized && unrecognized.length > 0) {
                payload.issues.push({
                    code: "unrecognized_keys",
                    input,
                    inst,
                    keys: unrecognized,
                    continue: true,
                });
            }
        }
        else {
            payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
            // An enumerable key schema declares which keys the record owns, so a key outside the set is unrecognized. A non-enumerable one (regex, refine) is a constraint every key must satisfy, so a failing key is invalid. Only the former is reconcilable against the other side of an intersection.
            let unrecognized;
            // Reflect.ownKeys for Symbol-key support; filter non-enumerable to match z.object()
            for (const key of Reflect.ownKeys(input)) {
                if (key === "__proto__")
                    continue;
                if (!Object.prototype.propertyIsEnumerable.call(input, key))
                    continue;
                let keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
                if (keyResult instanceof Promise) {
                    throw new Error("Async schemas not supported in object keys currently");
                }
                // Numeric string fallback: if key is a numeric string and failed, retry with Number(key). This handles z.number(), z.literal([1, 2, 3]), and unions containing numeric literals
                const checkNumericKey = typeof key === "string" && regexes.number.test(key) && keyResult.issues.length;
                if (checkNumericKey) {
                    const retryResult = def.keyType._zod.run({ value: Number(key), issues: [] }, ctx);
                    if (retryResult instanceof Promise) {
                        throw new Error("Async schemas not supported in object keys currently");
                    }
                    if (retryResult.issues.length === 0) {
                        keyResult = retryResult;
                    }
                }
                if (keyResult.issues.length) {
                    if (def.mode === "loose") {
                        // Pass through unchanged
                        payload.value[key] = input[key];
                    }
                    else if (values) {
                        unrecognized = unrecognized ?? [];
                        unrecognized.push(key);
                    }
                    else {
                        // Default "strict" behavior: error on invalid key
                        payload.issues.push({
                            code: "invalid_key",
                            origin: "record",
                            issues: keyResult.issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())),
                            input: key,
                            path: [key],
                            inst,
                        });
                    }
                    continue;
                }
                // the guard above tests the raw input key, but the key schema can normalize an ordinary key into __proto__; re-check the key we actually write under
                const outKey = keyResult.value;
                if (outKey === "__proto__")
                    continue;
                const result = def.valueType._zod.run({ value: input[key], issues: [] }, ctx);
                if (result instanceof Promise) {
                    proms.push(result.then((result) => {
                        if (result.issues.length) {
                            payload.issues.push(...util.prefixIssues(key, result.issues));
                        }
                        payload.value[outKey] = result.value;
                    }));
                }
                else {
                    if (result.issues.length) {
                        payload.issues.push(...util.prefixIssues(key, result.issues));
                    }
                    payload.value[outKey] = result.value;
                }
            }
            if (unrecognized && unrecognized.length > 0) {
                payload.issues.push({
                    code: "unrecognized_keys",
                    input,
                    inst,
                    keys: unrecognized,
                    continue: true,
                });
            }
        }
        if (proms.length) {
            return Promise.all(proms).then(() => payload);
        }
        return payload;
    };
})));
const $ZodMap = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodMap", (inst, def) => {
    $ZodType.init(inst, def);
    const memo = core.globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!(input instanceof Map)) {
            payload.issues.push({
                expected: "map",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        const proms = [];
        payload.value = memo ? memo.alloc(inst, payload, new Map(), ctx) : new Map();
        const abortEarly = ctx?.abortEarly;
        let seen = payload.issues.length;
        for (const [key, value] of input) {
            if (abortEarly && payload.issues.length !== seen) {
                if (util.aborted(payload, seen))
                    break;
                seen = payload.issues.length;
            }
            const keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
            const valueResult = def.valueType._zod.run({ value: value, issues: [] }, ctx);
            if (keyResult instanceof Promise || valueResult instanceof Promise) {
                proms.push(Promise.all([keyResult, valueResult]).then(([keyResult, valueResult]) => {
                    handleMapResult(keyResult, valueResult, payload, key, input, inst, ctx);
                }));
            }
            else {
                handleMapResult(keyResult, valueResult, payload, key, input, inst, ctx);
            }
        }
        if (proms.length)
            return Promise.all(proms).then(() => payload);
        return payload;
    };
    capSize(inst, mapSize);
})));
function handleMapResult(keyResult, valueResult, final, key, input, inst, ctx) {
    if (keyResult.issues.length) {
        if (util.propertyKeyTypes.has(typeof key)) {
            final.issues.push(...util.prefixIssues(key, keyResult.issues));
        }
        else {
            final.issues.push({
                code: "invalid_key",
                origin: "map",
                input,
                inst,
                issues: keyResult.issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())),
            });
        }
    }
    if (valueResult.issues.length) {
        if (util.propertyKeyTypes.has(typeof key)) {
            final.issues.push(...util.prefixIssues(key, valueResult.issues));
        }
        else {
            final.issues.push({
                origin: "map",
                code: "invalid_element",
                input,
                inst,
                key: key,
                issues: valueResult.issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())),
            });
        }
    }
    final.value.set(keyResult.value, valueResult.value);
}
const $ZodSet = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodSet", (inst, def) => {
    $ZodType.init(inst, def);
    const memo = core.globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!(input instanceof Set)) {
            payload.issues.push({
                input,
                inst,
                expected: "set",
                code: "invalid_type",
            });
            return payload;
        }
        const proms = [];
        payload.value = memo ? memo.alloc(inst, payload, new Set(), ctx) : new Set();
        const abortEarly = ctx?.abortEarly;
        let seen = payload.issues.length;
        for (const item of input) {
            if (abortEarly && payload.issues.length !== seen) {
                if (util.aborted(payload, seen))
                    break;
                seen = payload.issues.length;
            }
            const result = def.valueType._zod.run({ value: item, issues: [] }, ctx);
            if (result instanceof Promise) {
                proms.push(result.then((result) => handleSetResult(result, payload)));
            }
            else
                handleSetResult(result, payload);
        }
        if (proms.length)
            return Promise.all(proms).then(() => payload);
        return payload;
    };
    capSize(inst, setSize);
})));
function handleSetResult(result, final) {
    if (result.issues.length) {
        final.issues.push(...result.issues);
    }
    final.value.add(result.value);
}
const $ZodEnum = /*@__PURE__*/ $constructor("$ZodEnum", (inst, def) => {
    $ZodType.init(inst, def);
    const values = getEnumValues(def.entries);
    const valuesSet = new Set(values);
    inst._zod.values = valuesSet;
    defineLazyInternal(inst, "pattern", (zod) => {
        const patternValues = getEnumValues(zod.def.entries).filter((k) => propertyKeyTypes.has(typeof k));
        // unmatchable fallback, RE2-safe: an empty alternation would compile to /^()$/, which matches ""
        return new RegExp(patternValues.length ? `^(${patternValues.map((o) => escapeRegex(o.toString())).join("|")})$` : "^[^\\s\\S]$");
    });
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (valuesSet.has(input)) {
            return payload;
        }
        payload.issues.push({
            code: "invalid_value",
            values,
            input,
            inst,
        });
        return payload;
    };
});
const $ZodLiteral = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodLiteral", (inst, def) => {
    $ZodType.init(inst, def);
    const values = new Set(def.values);
    inst._zod.values = values;
    util.defineLazyInternal(inst, "pattern", (zod) => {
        const vals = zod.def.values;
        // unmatchable fallback, RE2-safe: an empty alternation would compile to /^()$/, which matches ""
        return new RegExp(vals.length
            ? `^(${vals
                .map((o) => typeof o === "string" ? util.escapeRegex(o) : o ? util.escapeRegex(o.toString()) : String(o))
                .join("|")})$`
            : "^[^\\s\\S]$");
    });
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (values.has(input)) {
            return payload;
        }
        payload.issues.push({
            code: "invalid_value",
            values: def.values,
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodFile = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodFile", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        // @ts-ignore
        if (input instanceof File)
            return payload;
        payload.issues.push({
            expected: "file",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodTransform = /*@__PURE__*/ $constructor("$ZodTransform", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.optin = "optional";
    globalConfig.memoizer?.guard(inst);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            throw new $ZodEncodeError(inst.constructor.name);
        }
        const _out = def.transform(payload.value, payload);
        if (ctx.async) {
            const output = _out instanceof Promise ? _out : Promise.resolve(_out);
            return output.then((output) => {
                payload.value = output;
                return payload;
            });
        }
        if (_out instanceof Promise) {
            throw new $ZodAsyncError();
        }
        payload.value = _out;
        return payload;
    };
});
function handleOptionalResult(payload, result) {
    // A substituting schema that still failed has no usable answer; yield undefined. Its issues are simply dropped: it ran on a payload of its own, so there is no shared array to truncate and nothing of the caller's to lose with it.
    payload.value = result.issues.length ? undefined : result.value;
    return payload;
}
const $ZodOptional = /*@__PURE__*/ $constructor("$ZodOptional", (inst, def) => {
    $ZodType.init(inst, def);
    // .optional() propagates absence rather than substituting for it, so a defaulted inner keeps its rung.
    defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
    inst._zod.optout = "optional";
    defineLazyInternal(inst, "values", (zod) => {
        const values = zod.def.innerType._zod.values;
        return values ? new Set([...values, undefined]) : undefined;
    });
    defineLazyInternal(inst, "pattern", (zod) => {
        const pattern = zod.def.innerType._zod.pattern;
        return pattern ? new RegExp(`^(${cleanRegex(pattern.source)})?$`) : undefined;
    });
    inst._zod.parse = (payload, ctx) => {
        if (payload.value === undefined) {
            // Only the top rung substitutes a value for absence; everything else leaves it intact, which is what .optional() means.
            if (def.innerType._zod.optin !== "defaulted")
                return payload;
            // Its own payload, for the same reason $ZodCatch gets one: a pipe forwards an unrecognized key through the caller's issues array, and this must not read that as the substituting schema failing and drop it.
            const result = def.innerType._zod.run({ value: payload.value, issues: [] }, ctx);
            if (result instanceof Promise)
                return result.then((result) => handleOptionalResult(payload, result));
            return handleOptionalResult(payload, result);
        }
        return def.innerType._zod.run(payload, ctx);
    };
});
const $ZodExactOptional = /*@__PURE__*/ $constructor("$ZodExactOptional", (inst, def) => {
    // Call parent init - inherits optin/optout = "optional"
    $ZodOptional.init(inst, def);
    // Override values/pattern to NOT add undefined
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    defineLazyInternal(inst, "pattern", (zod) => zod.def.innerType._zod.pattern);
    // Override parse to just delegate (no undefined handling)
    inst._zod.parse = (payload, ctx) => {
        return def.innerType._zod.run(payload, ctx);
    };
});
const $ZodNullable = /*@__PURE__*/ $constructor("$ZodNullable", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin);
    defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
    defineLazyInternal(inst, "pattern", (zod) => {
        const pattern = zod.def.innerType._zod.pattern;
        return pattern ? new RegExp(`^(${cleanRegex(pattern.source)}|null)$`) : undefined;
    });
    defineLazyInternal(inst, "values", (zod) => {
        return zod.def.innerType._zod.values ? new Set([...zod.def.innerType._zod.values, null]) : undefined;
    });
    inst._zod.parse = (payload, ctx) => {
        // Forward direction (decode): allow null to pass through
        if (payload.value === null)
            return payload;
        return def.innerType._zod.run(payload, ctx);
    };
});
const $ZodDefault = /*@__PURE__*/ $constructor("$ZodDefault", (inst, def) => {
    $ZodType.init(inst, def);
    // inst._zod.qin = "true";
    inst._zod.optin = "defaulted";
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            return def.innerType._zod.run(payload, ctx);
        }
        // Forward direction (decode): apply defaults for undefined input
        if (payload.value === undefined) {
            payload.value = def.defaultValue;
            /**
             * $ZodDefault returns the default value immediately in forward direction.
             * It doesn't pass the default value into the validator ("prefault"). There's no reason to pass the default value through validation. The validity of the default is enforced by TypeScript statically. Otherwise, it's the responsibility of the user to ensure the default is valid. In the case of pipes with divergent in/out types, you can specify the default on the `in` schema of your ZodPipe to set a "prefault" for the pipe.   */
            return payload;
        }
        // Forward direction: continue with default handling
        const result = def.innerType._zod.run(payload, ctx);
        if (result instanceof Promise) {
            return result.then((result) => handleDefaultResult(result, def));
        }
        return handleDefaultResult(result, def);
    };
});
function handleDefaultResult(payload, def) {
    if (payload.value === undefined) {
        payload.value = def.defaultValue;
    }
    return payload;
}
const $ZodPrefault = /*@__PURE__*/ $constructor("$ZodPrefault", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.optin = "defaulted";
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            return def.innerType._zod.run(payload, ctx);
        }
        // Forward direction (decode): apply prefault for undefined input
        if (payload.value === undefined) {
            payload.value = def.defaultValue;
        }
        return def.innerType._zod.run(payload, ctx);
    };
});
const $ZodNonOptional = /*@__PURE__*/ $constructor("$ZodNonOptional", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "values", (zod) => {
        const v = zod.def.innerType._zod.values;
        return v ? new Set([...v].filter((x) => x !== undefined)) : undefined;
    });
    inst._zod.parse = (payload, ctx) => {
        const result = def.innerType._zod.run(payload, ctx);
        if (result instanceof Promise) {
            return result.then((result) => handleNonOptionalResult(result, inst));
        }
        return handleNonOptionalResult(result, inst);
    };
});
function handleNonOptionalResult(payload, inst) {
    if (!payload.issues.length && payload.value === undefined) {
        payload.issues.push({
            code: "invalid_type",
            expected: "nonoptional",
            input: payload.value,
            inst,
        });
    }
    return payload;
}
const $ZodSuccess = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodSuccess", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            throw new core.$ZodEncodeError("ZodSuccess");
        }
        const result = def.innerType._zod.run(payload, ctx);
        if (result instanceof Promise) {
            return result.then((result) => {
                payload.value = result.issues.length === 0;
                return payload;
            });
        }
        payload.value = result.issues.length === 0;
        return payload;
    };
})));
function handleCatchResult(payload, result, def, ctx) {
    if (!result.issues.length) {
        payload.value = result.value;
        // The value carries up, so the flag describing it has to carry with it: a back-edge into a node still being parsed must not be frozen by an enclosing readonly, and its checks belong to the node itself. Guarded so the ordinary case adds no own property.
        if (result.memo)
            payload.memo = true;
        return payload;
    }
    // Spread the inner's own payload, not ours: `value` has to stay the input the catch was handed, and the inner ran on a payload of its own so its issues are already private to this call.
    payload.value = def.catchValue({
        ...result,
        value: payload.value,
        error: {
            issues: result.issues.map((iss) => finalizeIssue(iss, ctx, config())),
        },
        input: payload.value,
    });
    return payload;
}
const $ZodCatch = /*@__PURE__*/ $constructor("$ZodCatch", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
    defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            return def.innerType._zod.run(payload, ctx);
        }
        // Forward direction (decode): apply catch logic
        const result = def.innerType._zod.run({ value: payload.value, issues: [] }, ctx);
        if (result instanceof Promise) {
            return result.then((result) => handleCatchResult(payload, result, def, ctx));
        }
        return handleCatchResult(payload, result, def, ctx);
    };
});
const $ZodNaN = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodNaN", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        if (typeof payload.value !== "number" || !Number.isNaN(payload.value)) {
            payload.issues.push({
                input: payload.value,
                inst,
                expected: "nan",
                code: "invalid_type",
            });
            return payload;
        }
        return payload;
    };
})));
const $ZodPipe = /*@__PURE__*/ $constructor("$ZodPipe", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "values", (zod) => zod.def.in._zod.values);
    defineLazyInternal(inst, "optin", (zod) => zod.def.in._zod.optin);
    defineLazyInternal(inst, "optout", (zod) => zod.def.out._zod.optout);
    defineLazyInternal(inst, "propValues", (zod) => zod.def.in._zod.propValues);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            const right = def.out._zod.run(payload, ctx);
            if (right instanceof Promise) {
                return right.then((right) => handlePipeResult(right, def.in, ctx));
            }
            return handlePipeResult(right, def.in, ctx);
        }
        const left = def.in._zod.run(payload, ctx);
        if (left instanceof Promise) {
            return left.then((left) => handlePipeResult(left, def.out, ctx));
        }
        return handlePipeResult(left, def.out, ctx);
    };
});
function handlePipeResult(left, next, ctx) {
    // Any issue stops the pipe, so a failing refinement never feeds its transform. An unrecognized key is the exception: it describes the input's extra properties, not the value being piped, and an enclosing intersection may yet reconcile it.
    if (left.issues.some((iss) => iss.code !== "unrecognized_keys")) {
        // prevent further checks
        left.aborted = true;
        return left;
    }
    return next._zod.run({ value: left.value, issues: left.issues }, ctx);
}
const $ZodCodec = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCodec", (inst, def) => {
    $ZodType.init(inst, def);
    util.defineLazyInternal(inst, "values", (zod) => zod.def.in._zod.values);
    util.defineLazyInternal(inst, "optin", (zod) => zod.def.in._zod.optin);
    util.defineLazyInternal(inst, "optout", (zod) => zod.def.out._zod.optout);
    util.defineLazyInternal(inst, "propValues", (zod) => zod.def.in._zod.propValues);
    inst._zod.parse = (payload, ctx) => {
        const direction = ctx.direction || "forward";
        if (direction === "forward") {
            const left = def.in._zod.run(payload, ctx);
            if (left instanceof Promise) {
                return left.then((left) => handleCodecAResult(left, def, ctx));
            }
            return handleCodecAResult(left, def, ctx);
        }
        else {
            const right = def.out._zod.run(payload, ctx);
            if (right instanceof Promise) {
                return right.then((right) => handleCodecAResult(right, def, ctx));
            }
            return handleCodecAResult(right, def, ctx);
        }
    };
})));
function handleCodecAResult(result, def, ctx) {
    if (result.issues.length) {
        // prevent further checks
        result.aborted = true;
        return result;
    }
    const direction = ctx.direction || "forward";
    if (direction === "forward") {
        const transformed = def.transform(result.value, result);
        if (transformed instanceof Promise) {
            return transformed.then((value) => handleCodecTxResult(result, value, def.out, ctx));
        }
        return handleCodecTxResult(result, transformed, def.out, ctx);
    }
    else {
        const transformed = def.reverseTransform(result.value, result);
        if (transformed instanceof Promise) {
            return transformed.then((value) => handleCodecTxResult(result, value, def.in, ctx));
        }
        return handleCodecTxResult(result, transformed, def.in, ctx);
    }
}
function handleCodecTxResult(left, value, nextSchema, ctx) {
    // Check if transform added any issues
    if (left.issues.length) {
        left.aborted = true;
        return left;
    }
    return nextSchema._zod.run({ value, issues: left.issues }, ctx);
}
const $ZodPreprocess = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodPreprocess", (inst, def) => {
    $ZodPipe.init(inst, def);
})));
const $ZodReadonly = /*@__PURE__*/ $constructor("$ZodReadonly", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "propValues", (zod) => zod.def.innerType._zod.propValues);
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    defineLazyInternal(inst, "optin", (zod) => zod.def.innerType?._zod?.optin);
    defineLazyInternal(inst, "optout", (zod) => zod.def.innerType?._zod?.optout);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            return def.innerType._zod.run(payload, ctx);
        }
        const result = def.innerType._zod.run(payload, ctx);
        if (result instanceof Promise) {
            return result.then(handleReadonlyResult);
        }
        return handleReadonlyResult(result);
    };
});
function handleReadonlyResult(payload) {
    // A repeat visit hands back a node that is still being built; freezing it here would make the rest of its keys fail to assign.
    if (!payload.memo)
        payload.value = Object.freeze(payload.value);
    return payload;
}
// a leaf's pattern source with its own checks folded in: the last pattern-carrying check wins, else length bounds narrow the catch-all, else an integer format narrows the number form. the fold lives here instead of on `_zod.pattern` so a bundle without template literals never pays for it
function leafPattern(schema) {
    const def = schema._zod.def;
    let pattern = def.pattern;
    let isInt = !!def.format?.includes("int");
    let minimum;
    let maximum;
    for (const ch of def.checks ?? []) {
        const d = ch._zod.def;
        if (d.pattern)
            pattern = d.pattern;
        isInt || (isInt = !!d.format?.includes("int"));
        const lo = d.minimum ?? d.length;
        const hi = d.maximum ?? d.length;
        if (lo !== undefined && (minimum === undefined || lo > minimum))
            minimum = lo;
        if (hi !== undefined && (maximum === undefined || hi < maximum))
            maximum = hi;
    }
    if (pattern)
        return pattern.source;
    // an empty range matches nothing at runtime, and `{8,5}` is not a legal quantifier
    if (minimum !== undefined && maximum !== undefined && minimum > maximum)
        return "(?!)";
    if (minimum !== undefined || maximum !== undefined)
        return regexes.string({ minimum, maximum }).source;
    const own = schema._zod.pattern;
    return (isInt && own === regexes.number ? regexes.integer : own)?.source;
}
// a part's pattern source. a wrapper's pattern embeds its inner pattern's source verbatim, so the folded form is substituted in place without knowing the wrapper's own composition; a union's options are joined the way the union builds its own pattern
function partPattern(schema) {
    const def = schema._zod.def;
    const own = schema._zod.pattern?.source;
    // lazy resolves its inner on the internals, not the def
    const inner = def.innerType ?? schema._zod.innerType;
    if (inner) {
        const before = inner._zod.pattern?.source;
        const after = partPattern(inner);
        if (own && before && after && after !== before) {
            return own.replace(util.cleanRegex(before), () => util.cleanRegex(after));
        }
        return own;
    }
    if (def.options) {
        const sources = def.options.map(partPattern);
        if (sources.every(Boolean))
            return `^(${sources.map((s) => util.cleanRegex(s)).join("|")})$`;
    }
    return leafPattern(schema);
}
const $ZodTemplateLiteral = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodTemplateLiteral", (inst, def) => {
    $ZodType.init(inst, def);
    const regexParts = [];
    for (const part of def.parts) {
        if (typeof part === "object" && part !== null) {
            // is Zod schema
            const source = partPattern(part);
            if (!source) {
                throw new Error(`Invalid template literal part, no pattern found: ${[...part._zod.traits].shift()}`);
            }
            regexParts.push(util.cleanRegex(source));
        }
        else if (part === null || util.primitiveTypes.has(typeof part)) {
            regexParts.push(util.escapeRegex(`${part}`));
        }
        else {
            throw new Error(`Invalid template literal part: ${part}`);
        }
    }
    inst._zod.pattern = new RegExp(`^${regexParts.join("")}$`);
    inst._zod.parse = (payload, _ctx) => {
        if (typeof payload.value !== "string") {
            payload.issues.push({
                input: payload.value,
                inst,
                expected: "string",
                code: "invalid_type",
            });
            return payload;
        }
        inst._zod.pattern.lastIndex = 0;
        if (!inst._zod.pattern.test(payload.value)) {
            payload.issues.push({
                input: payload.value,
                inst,
                code: "invalid_format",
                format: def.format ?? "template_literal",
                pattern: inst._zod.pattern.source,
            });
            return payload;
        }
        return payload;
    };
})));
const $ZodFunction = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodFunction", (inst, def) => {
    $ZodType.init(inst, def);
    // Defined, not assigned: the classic prototype exposes `_def` as a getter with no setter.
    Object.defineProperty(inst, "_def", { value: def });
    inst._zod.def = def;
    inst.implement = (func) => {
        if (typeof func !== "function") {
            throw new Error("implement() must be called with a function");
        }
        // Defined inline so the closure stays anonymous: binding it to a `const` first names it, which costs 256 bytes per implemented function.
        return Object.defineProperty(function (...args) {
            const parsedArgs = inst._def.input ? parse(inst._def.input, args) : args;
            const result = Reflect.apply(func, this, parsedArgs);
            if (inst._def.output) {
                return parse(inst._def.output, result);
            }
            return result;
        }, "_zod", { value: inst._zod, enumerable: false });
    };
    inst.implementAsync = (func) => {
        if (typeof func !== "function") {
            throw new Error("implementAsync() must be called with a function");
        }
        return Object.defineProperty(async function (...args) {
            const parsedArgs = inst._def.input ? await parseAsync(inst._def.input, args) : args;
            const result = await Reflect.apply(func, this, parsedArgs);
            if (inst._def.output) {
                return await parseAsync(inst._def.output, result);
            }
            return result;
        }, "_zod", { value: inst._zod, enumerable: false });
    };
    inst._zod.parse = (payload, _ctx) => {
        if (typeof payload.value !== "function") {
            payload.issues.push({
                code: "invalid_type",
                expected: "function",
                input: payload.value,
                inst,
            });
            return payload;
        }
        // Check if output is a promise type to determine if we should use async implementation
        const hasPromiseOutput = inst._def.output && inst._def.output._zod.def.type === "promise";
        if (hasPromiseOutput) {
            payload.value = inst.implementAsync(payload.value);
        }
        else {
            payload.value = inst.implement(payload.value);
        }
        return payload;
    };
    inst.input = (...args) => {
        const F = inst.constructor;
        if (Array.isArray(args[0])) {
            return new F({
                type: "function",
                input: new $ZodTuple({
                    type: "tuple",
                    items: args[0],
                    rest: args[1],
                }),
                output: inst._def.output,
            });
        }
        return new F({
            type: "function",
            input: args[0],
            output: inst._def.output,
        });
    };
    inst.output = (output) => {
        const F = inst.constructor;
        return new F({
            type: "function",
            input: inst._def.input,
            output,
        });
    };
    return inst;
})));
const $ZodPromise = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodPromise", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, ctx) => {
        return Promise.resolve(payload.value).then((inner) => def.innerType._zod.run({ value: inner, issues: [] }, ctx));
    };
})));
const $ZodLazy = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodLazy", (inst, def) => {
    $ZodType.init(inst, def);
    // Cache the resolved inner type on the shared `def` so all clones of this lazy (e.g. via `.describe()`/`.meta()`) share the same inner instance, preserving identity for cycle detection on recursive schemas.
    util.defineLazy(inst._zod, "innerType", () => {
        const d = def;
        if (!d._cachedInner)
            d._cachedInner = def.getter();
        return d._cachedInner;
    });
    util.defineLazyInternal(inst, "pattern", (zod) => zod.innerType?._zod?.pattern);
    util.defineLazyInternal(inst, "propValues", (zod) => zod.innerType?._zod?.propValues);
    util.defineLazyInternal(inst, "optin", (zod) => zod.innerType?._zod?.optin ?? undefined);
    util.defineLazyInternal(inst, "optout", (zod) => zod.innerType?._zod?.optout ?? undefined);
    inst._zod.parse = (payload, ctx) => {
        const inner = inst._zod.innerType;
        return inner._zod.run(payload, ctx);
    };
})));
const $ZodCustom = /*@__PURE__*/ $constructor("$ZodCustom", (inst, def) => {
    $ZodCheck.init(inst, def);
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _) => {
        return payload;
    };
    inst._zod.check = (payload) => {
        const input = payload.value;
        const r = def.fn(input);
        if (r instanceof Promise) {
            return r.then((r) => handleRefineResult(r, payload, input, inst));
        }
        handleRefineResult(r, payload, input, inst);
        return;
    };
});
function handleRefineResult(result, payload, input, inst) {
    if (!result) {
        const _iss = {
            code: "custom",
            input,
            inst, // incorporates params.error into issue reporting
            path: [...(inst._zod.def.path ?? [])], // incorporates params.error into issue reporting
            continue: !inst._zod.def.abort,
            // params: inst._zod.def.params,
        };
        if (inst._zod.def.params)
            _iss.params = inst._zod.def.params;
        payload.issues.push(util_issue(_iss));
    }
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/registries.js
var registries_a;
const $output = /*@__PURE__*/ (/* unused pure expression or super */ null && (Symbol("ZodOutput")));
const $input = /*@__PURE__*/ (/* unused pure expression or super */ null && (Symbol("ZodInput")));
class $ZodRegistry {
    constructor() {
        this._map = new WeakMap();
        this._idmap = new Map();
    }
    add(schema, ..._meta) {
        const meta = _meta[0];
        this._map.set(schema, meta);
        if (meta && typeof meta === "object" && "id" in meta) {
            this._idmap.set(meta.id, schema);
        }
        return this;
    }
    clear() {
        this._map = new WeakMap();
        this._idmap = new Map();
        return this;
    }
    remove(schema) {
        const meta = this._map.get(schema);
        if (meta && typeof meta === "object" && "id" in meta) {
            this._idmap.delete(meta.id);
        }
        this._map.delete(schema);
        return this;
    }
    get(schema) {
        // return this._map.get(schema) as any;
        // inherit metadata
        const p = schema._zod.parent;
        if (p) {
            const pm = { ...(this.get(p) ?? {}) };
            delete pm.id; // do not inherit id
            const f = { ...pm, ...this._map.get(schema) };
            return Object.keys(f).length ? f : undefined;
        }
        return this._map.get(schema);
    }
    has(schema) {
        return this._map.has(schema);
    }
}
// registries
function registry() {
    return new $ZodRegistry();
}
(registries_a = globalThis).__zod_globalRegistry ?? (registries_a.__zod_globalRegistry = registry());
const globalRegistry = globalThis.__zod_globalRegistry;

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/api.js




function snapshotChecks(def) {
    if (def.checks)
        def.checks = [...def.checks];
    return def;
}
// @__NO_SIDE_EFFECTS__
function _string(Class, params) {
    return new Class(snapshotChecks({ type: "string", ...normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _coercedString(Class, params) {
    return new Class(snapshotChecks({ type: "string", coerce: true, ...util.normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _email(Class, params) {
    return new Class({
        type: "string",
        format: "email",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _guid(Class, params) {
    return new Class({
        type: "string",
        format: "guid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uuid(Class, params) {
    return new Class({
        type: "string",
        format: "uuid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uuidv4(Class, params) {
    return new Class({
        type: "string",
        format: "uuid",
        check: "string_format",
        abort: false,
        version: "v4",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uuidv6(Class, params) {
    return new Class({
        type: "string",
        format: "uuid",
        check: "string_format",
        abort: false,
        version: "v6",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uuidv7(Class, params) {
    return new Class({
        type: "string",
        format: "uuid",
        check: "string_format",
        abort: false,
        version: "v7",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _url(Class, params) {
    return new Class({
        type: "string",
        format: "url",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function api_emoji(Class, params) {
    return new Class({
        type: "string",
        format: "emoji",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _nanoid(Class, params) {
    return new Class({
        type: "string",
        format: "nanoid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
/**
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link _cuid2} instead.
 * See https://github.com/paralleldrive/cuid.
 */
// @__NO_SIDE_EFFECTS__
function _cuid(Class, params) {
    return new Class({
        type: "string",
        format: "cuid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _cuid2(Class, params) {
    return new Class({
        type: "string",
        format: "cuid2",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _ulid(Class, params) {
    return new Class({
        type: "string",
        format: "ulid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _xid(Class, params) {
    return new Class({
        type: "string",
        format: "xid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _ksuid(Class, params) {
    return new Class({
        type: "string",
        format: "ksuid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _ipv4(Class, params) {
    return new Class({
        type: "string",
        format: "ipv4",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _ipv6(Class, params) {
    return new Class({
        type: "string",
        format: "ipv6",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _mac(Class, params) {
    return new Class({
        type: "string",
        format: "mac",
        check: "string_format",
        abort: false,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _cidrv4(Class, params) {
    return new Class({
        type: "string",
        format: "cidrv4",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _cidrv6(Class, params) {
    return new Class({
        type: "string",
        format: "cidrv6",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _base64(Class, params) {
    return new Class({
        type: "string",
        format: "base64",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _base64url(Class, params) {
    return new Class({
        type: "string",
        format: "base64url",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _e164(Class, params) {
    return new Class({
        type: "string",
        format: "e164",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _creditCard(Class, params) {
    return new Class({
        type: "string",
        format: "credit_card",
        check: "string_format",
        abort: false,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _iban(Class, params) {
    return new Class({
        type: "string",
        format: "iban",
        check: "string_format",
        abort: false,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _jwt(Class, params) {
    return new Class({
        type: "string",
        format: "jwt",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
const TimePrecision = {
    Any: null,
    Minute: -1,
    Second: 0,
    Millisecond: 3,
    Microsecond: 6,
};
// @__NO_SIDE_EFFECTS__
function _isoDateTime(Class, params) {
    return new Class({
        type: "string",
        format: "datetime",
        check: "string_format",
        offset: false,
        local: false,
        precision: null,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _isoDate(Class, params) {
    return new Class({
        type: "string",
        format: "date",
        check: "string_format",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _isoTime(Class, params) {
    return new Class({
        type: "string",
        format: "time",
        check: "string_format",
        precision: null,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _isoDuration(Class, params) {
    return new Class({
        type: "string",
        format: "duration",
        check: "string_format",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _number(Class, params) {
    return new Class(snapshotChecks({ type: "number", checks: [], ...normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _coercedNumber(Class, params) {
    return new Class(snapshotChecks({ type: "number", coerce: true, checks: [], ...util.normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _int(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "safeint",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _float32(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "float32",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _float64(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "float64",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _int32(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "int32",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uint32(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "uint32",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _boolean(Class, params) {
    return new Class({
        type: "boolean",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _coercedBoolean(Class, params) {
    return new Class({
        type: "boolean",
        coerce: true,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _bigint(Class, params) {
    return new Class({
        type: "bigint",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _coercedBigint(Class, params) {
    return new Class({
        type: "bigint",
        coerce: true,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _int64(Class, params) {
    return new Class({
        type: "bigint",
        check: "bigint_format",
        abort: false,
        format: "int64",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uint64(Class, params) {
    return new Class({
        type: "bigint",
        check: "bigint_format",
        abort: false,
        format: "uint64",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _symbol(Class, params) {
    return new Class({
        type: "symbol",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function api_undefined(Class, params) {
    return new Class({
        type: "undefined",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function api_null(Class, params) {
    return new Class({
        type: "null",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _any(Class) {
    return new Class({
        type: "any",
    });
}
// @__NO_SIDE_EFFECTS__
function _unknown(Class) {
    return new Class({
        type: "unknown",
    });
}
// @__NO_SIDE_EFFECTS__
function _never(Class, params) {
    return new Class({
        type: "never",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _void(Class, params) {
    return new Class({
        type: "void",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _date(Class, params) {
    return new Class({
        type: "date",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _coercedDate(Class, params) {
    return new Class({
        type: "date",
        coerce: true,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _nan(Class, params) {
    return new Class({
        type: "nan",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _lt(value, params) {
    return new $ZodCheckLessThan({
        check: "less_than",
        ...normalizeParams(params),
        value,
        inclusive: false,
    });
}
// @__NO_SIDE_EFFECTS__
function _lte(value, params) {
    return new $ZodCheckLessThan({
        check: "less_than",
        ...normalizeParams(params),
        value,
        inclusive: true,
    });
}

// @__NO_SIDE_EFFECTS__
function _gt(value, params) {
    return new $ZodCheckGreaterThan({
        check: "greater_than",
        ...normalizeParams(params),
        value,
        inclusive: false,
    });
}
// @__NO_SIDE_EFFECTS__
function _gte(value, params) {
    return new $ZodCheckGreaterThan({
        check: "greater_than",
        ...normalizeParams(params),
        value,
        inclusive: true,
    });
}

// @__NO_SIDE_EFFECTS__
function _positive(params) {
    return _gt(0, params);
}
// negative
// @__NO_SIDE_EFFECTS__
function _negative(params) {
    return _lt(0, params);
}
// nonpositive
// @__NO_SIDE_EFFECTS__
function _nonpositive(params) {
    return _lte(0, params);
}
// nonnegative
// @__NO_SIDE_EFFECTS__
function _nonnegative(params) {
    return _gte(0, params);
}
// @__NO_SIDE_EFFECTS__
function _multipleOf(value, params) {
    return new $ZodCheckMultipleOf({
        check: "multiple_of",
        ...normalizeParams(params),
        value,
    });
}
// @__NO_SIDE_EFFECTS__
function _maxSize(maximum, params) {
    return new checks.$ZodCheckMaxSize({
        check: "max_size",
        ...util.normalizeParams(params),
        maximum,
    });
}
// @__NO_SIDE_EFFECTS__
function _minSize(minimum, params) {
    return new checks.$ZodCheckMinSize({
        check: "min_size",
        ...util.normalizeParams(params),
        minimum,
    });
}
// @__NO_SIDE_EFFECTS__
function _size(size, params) {
    return new checks.$ZodCheckSizeEquals({
        check: "size_equals",
        ...util.normalizeParams(params),
        size,
    });
}
// @__NO_SIDE_EFFECTS__
function _maxLength(maximum, params) {
    const ch = new $ZodCheckMaxLength({
        check: "max_length",
        ...normalizeParams(params),
        maximum,
    });
    return ch;
}
// @__NO_SIDE_EFFECTS__
function _minLength(minimum, params) {
    return new $ZodCheckMinLength({
        check: "min_length",
        ...normalizeParams(params),
        minimum,
    });
}
// @__NO_SIDE_EFFECTS__
function _length(length, params) {
    return new $ZodCheckLengthEquals({
        check: "length_equals",
        ...normalizeParams(params),
        length,
    });
}
// @__NO_SIDE_EFFECTS__
function _regex(pattern, params) {
    return new $ZodCheckRegex({
        check: "string_format",
        format: "regex",
        ...normalizeParams(params),
        pattern,
    });
}
// @__NO_SIDE_EFFECTS__
function _lowercase(params) {
    return new $ZodCheckLowerCase({
        check: "string_format",
        format: "lowercase",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uppercase(params) {
    return new $ZodCheckUpperCase({
        check: "string_format",
        format: "uppercase",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _includes(includes, params) {
    return new $ZodCheckIncludes({
        check: "string_format",
        format: "includes",
        ...normalizeParams(params),
        includes,
    });
}
// @__NO_SIDE_EFFECTS__
function _startsWith(prefix, params) {
    return new $ZodCheckStartsWith({
        check: "string_format",
        format: "starts_with",
        ...normalizeParams(params),
        prefix,
    });
}
// @__NO_SIDE_EFFECTS__
function _endsWith(suffix, params) {
    return new $ZodCheckEndsWith({
        check: "string_format",
        format: "ends_with",
        ...normalizeParams(params),
        suffix,
    });
}
// @__NO_SIDE_EFFECTS__
function _property(property, schema, params) {
    return new checks.$ZodCheckProperty({
        check: "property",
        property,
        schema,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _properties(shape, params) {
    return new $ZodCheckProperties({
        check: "properties",
        shape,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _mime(types, params) {
    return new checks.$ZodCheckMimeType({
        check: "mime_type",
        mime: types,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _overwrite(tx) {
    return new $ZodCheckOverwrite({
        check: "overwrite",
        tx,
    });
}
// normalize
// @__NO_SIDE_EFFECTS__
function _normalize(form) {
    return _overwrite((input) => input.normalize(form));
}
// trim
// @__NO_SIDE_EFFECTS__
function _trim() {
    return _overwrite((input) => input.trim());
}
// toLowerCase
// @__NO_SIDE_EFFECTS__
function _toLowerCase() {
    return _overwrite((input) => input.toLowerCase());
}
// toUpperCase
// @__NO_SIDE_EFFECTS__
function _toUpperCase() {
    return _overwrite((input) => input.toUpperCase());
}
// slugify
// @__NO_SIDE_EFFECTS__
function _slugify() {
    return _overwrite((input) => slugify(input));
}
// @__NO_SIDE_EFFECTS__
function _array(Class, element, params) {
    return new Class({
        type: "array",
        element,
        // get element() {
        //   return element;
        // },
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _union(Class, options, params) {
    return new Class({
        type: "union",
        options,
        ...util.normalizeParams(params),
    });
}
function _xor(Class, options, params) {
    return new Class({
        type: "union",
        options,
        inclusive: false,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _discriminatedUnion(Class, discriminator, options, params) {
    return new Class({
        type: "union",
        options: options,
        discriminator,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _intersection(Class, left, right) {
    return new Class({
        type: "intersection",
        left,
        right,
    });
}
// export function _tuple(
//   Class: util.SchemaClass<schemas.$ZodTuple>,
//   items: [],
//   params?: string | $ZodTupleParams
// ): schemas.$ZodTuple<[], null>;
// @__NO_SIDE_EFFECTS__
function _tuple(Class, items, _paramsOrRest, _params) {
    const hasRest = _paramsOrRest instanceof schemas.$ZodType;
    const params = hasRest ? _params : _paramsOrRest;
    const rest = hasRest ? _paramsOrRest : null;
    return new Class({
        type: "tuple",
        items,
        rest,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _record(Class, keyType, valueType, params) {
    return new Class({
        type: "record",
        keyType,
        valueType,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _map(Class, keyType, valueType, params) {
    return new Class({
        type: "map",
        keyType,
        valueType,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _set(Class, valueType, params) {
    return new Class({
        type: "set",
        valueType,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _enum(Class, values, params) {
    const entries = Array.isArray(values) ? Object.fromEntries(values.map((v) => [v, v])) : values;
    // if (Array.isArray(values)) {
    //   for (const value of values) {
    //     entries[value] = value;
    //   }
    // } else {
    //   Object.assign(entries, values);
    // }
    // const entries: util.EnumLike = {};
    // for (const val of values) {
    //   entries[val] = val;
    // }
    return new Class({
        type: "enum",
        entries,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
/** @deprecated This API has been merged into `z.enum()`. Use `z.enum()` instead.
 *
 * ```ts
 * enum Colors { red, green, blue }
 * z.enum(Colors);
 * ```
 */
function _nativeEnum(Class, entries, params) {
    return new Class({
        type: "enum",
        entries,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _literal(Class, value, params) {
    return new Class({
        type: "literal",
        values: Array.isArray(value) ? value : [value],
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _file(Class, params) {
    return new Class({
        type: "file",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _transform(Class, fn) {
    return new Class({
        type: "transform",
        transform: fn,
    });
}
// @__NO_SIDE_EFFECTS__
function _optional(Class, innerType) {
    return new Class({
        type: "optional",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _nullable(Class, innerType) {
    return new Class({
        type: "nullable",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _default(Class, innerType, defaultValue) {
    return new Class({
        type: "default",
        innerType,
        get defaultValue() {
            return typeof defaultValue === "function" ? defaultValue() : util.shallowClone(defaultValue);
        },
    });
}
// @__NO_SIDE_EFFECTS__
function _nonoptional(Class, innerType, params) {
    return new Class({
        type: "nonoptional",
        innerType,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _success(Class, innerType) {
    return new Class({
        type: "success",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _catch(Class, innerType, catchValue) {
    return new Class({
        type: "catch",
        innerType,
        catchValue: (typeof catchValue === "function" ? catchValue : util.constantCatch(catchValue)),
    });
}
// @__NO_SIDE_EFFECTS__
function _pipe(Class, in_, out) {
    return new Class({
        type: "pipe",
        in: in_,
        out,
    });
}
// @__NO_SIDE_EFFECTS__
function _readonly(Class, innerType) {
    return new Class({
        type: "readonly",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _templateLiteral(Class, parts, params) {
    return new Class({
        type: "template_literal",
        parts,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _lazy(Class, getter) {
    return new Class({
        type: "lazy",
        getter,
    });
}
// @__NO_SIDE_EFFECTS__
function _promise(Class, innerType) {
    return new Class({
        type: "promise",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _custom(Class, fn, _params) {
    const norm = util.normalizeParams(_params);
    norm.abort ?? (norm.abort = true); // default to abort:false
    const schema = new Class({
        type: "custom",
        check: "custom",
        fn: fn,
        ...norm,
    });
    return schema;
}
// same as _custom but defaults to abort:false
// @__NO_SIDE_EFFECTS__
function _refine(Class, fn, _params) {
    const schema = new Class({
        type: "custom",
        check: "custom",
        fn: fn,
        ...normalizeParams(_params),
    });
    return schema;
}
// @__NO_SIDE_EFFECTS__
function _superRefine(fn, params) {
    const ch = _check((payload) => {
        payload.addIssue = (issue) => {
            if (typeof issue === "string") {
                payload.issues.push(util_issue(issue, payload.value, ch._zod.def));
            }
            else {
                // for Zod 3 backwards compatibility
                const _issue = issue;
                if (_issue.fatal)
                    _issue.continue = false;
                _issue.code ?? (_issue.code = "custom");
                if (!("input" in _issue))
                    _issue.input = payload.value;
                _issue.inst ?? (_issue.inst = ch);
                _issue.continue ?? (_issue.continue = !ch._zod.def.abort); // abort is always undefined, so this is always true...
                payload.issues.push(util_issue(_issue));
            }
        };
        return fn(payload.value, payload);
    }, params);
    return ch;
}
// @__NO_SIDE_EFFECTS__
function _check(fn, params) {
    const ch = new $ZodCheck({
        check: "custom",
        ...normalizeParams(params),
    });
    ch._zod.check = fn;
    return ch;
}
// @__NO_SIDE_EFFECTS__
function describe(description) {
    const ch = new $ZodCheck({ check: "describe" });
    ch._zod.onattach = [
        (inst) => {
            const existing = globalRegistry.get(inst) ?? {};
            globalRegistry.add(inst, { ...existing, description });
        },
    ];
    ch._zod.check = () => { }; // no-op check
    return ch;
}
// @__NO_SIDE_EFFECTS__
function meta(metadata) {
    const ch = new $ZodCheck({ check: "meta" });
    ch._zod.onattach = [
        (inst) => {
            const existing = globalRegistry.get(inst) ?? {};
            globalRegistry.add(inst, { ...existing, ...metadata });
        },
    ];
    ch._zod.check = () => { }; // no-op check
    return ch;
}
// @__NO_SIDE_EFFECTS__
function _stringbool(Classes, _params) {
    const params = util.normalizeParams(_params);
    let truthyArray = params.truthy ?? ["true", "1", "yes", "on", "y", "enabled"];
    let falsyArray = params.falsy ?? ["false", "0", "no", "off", "n", "disabled"];
    if (params.case !== "sensitive") {
        truthyArray = truthyArray.map((v) => (typeof v === "string" ? v.toLowerCase() : v));
        falsyArray = falsyArray.map((v) => (typeof v === "string" ? v.toLowerCase() : v));
    }
    const truthySet = new Set(truthyArray);
    const falsySet = new Set(falsyArray);
    const _Codec = Classes.Codec ?? schemas.$ZodCodec;
    const _Boolean = Classes.Boolean ?? schemas.$ZodBoolean;
    const _String = Classes.String ?? schemas.$ZodString;
    const stringSchema = new _String({ type: "string", error: params.error });
    const booleanSchema = new _Boolean({ type: "boolean", error: params.error });
    const codec = new _Codec({
        type: "pipe",
        in: stringSchema,
        out: booleanSchema,
        transform: ((input, payload) => {
            let data = input;
            if (params.case !== "sensitive")
                data = data.toLowerCase();
            if (truthySet.has(data)) {
                return true;
            }
            else if (falsySet.has(data)) {
                return false;
            }
            else {
                payload.issues.push({
                    code: "invalid_value",
                    expected: "stringbool",
                    values: [...truthySet, ...falsySet],
                    input: payload.value,
                    inst: codec,
                    continue: false,
                });
                return {};
            }
        }),
        reverseTransform: ((input, _payload) => {
            if (input === true) {
                return truthyArray[0] || "true";
            }
            else {
                return falsyArray[0] || "false";
            }
        }),
        error: params.error,
    });
    codec._zod.bag.truthy = truthyArray;
    codec._zod.bag.falsy = falsyArray;
    codec._zod.bag.case = params.case ?? "insensitive";
    return codec;
}
// @__NO_SIDE_EFFECTS__
function _stringFormat(Class, format, fnOrRegex, _params = {}) {
    const params = util.normalizeParams(_params);
    const def = {
        check: "string_format",
        type: "string",
        format,
        fn: typeof fnOrRegex === "function" ? fnOrRegex : (val) => fnOrRegex.test(val),
        ...params,
    };
    if (fnOrRegex instanceof RegExp) {
        def.pattern = fnOrRegex;
    }
    const inst = new Class(def);
    return inst;
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/to-json-schema.js


function assignProps(target, ...sources) {
    for (const source of sources) {
        for (const key of Reflect.ownKeys(source)) {
            if (Object.prototype.propertyIsEnumerable.call(source, key)) {
                util_assignProp(target, key, source[key]);
            }
        }
    }
    return target;
}
// function initializeContext<T extends schemas.$ZodType>(inputs: JSONSchemaGeneratorParams<T>): ToJSONSchemaContext<T> {
//   return {
//     processor: inputs.processor,
//     metadataRegistry: inputs.metadata ?? globalRegistry,
//     target: inputs.target ?? "draft-2020-12",
//     unrepresentable: inputs.unrepresentable ?? "throw",
//   };
// }
function to_json_schema_initializeContext(params) {
    // Normalize target: convert old non-hyphenated versions to hyphenated versions
    let target = params?.target ?? "draft-2020-12";
    if (target === "draft-4")
        target = "draft-04";
    if (target === "draft-7")
        target = "draft-07";
    return {
        processors: params.processors ?? {},
        metadataRegistry: params?.metadata ?? globalRegistry,
        target,
        unrepresentable: params?.unrepresentable ?? "throw",
        override: params?.override ?? (() => { }),
        io: params?.io ?? "output",
        counter: 0,
        seen: new Map(),
        sharedDefsExtractedFor: undefined,
        sharedEmitDoneFor: undefined,
        cycles: params?.cycles ?? "ref",
        reused: params?.reused ?? "inline",
        intersections: [],
        deferred: [],
        external: params?.external ?? undefined,
    };
}
/**
 * Applies the `unrepresentable` setting at a site that has no JSON Schema equivalent. Throws
 * `message` unless the setting (or the handler's return value) says otherwise. Returns `true` if a
 * custom JSON Schema was written into `json`, in which case the caller must not write its own.
 */
function handleUnrepresentable(schema, ctx, json, params, message) {
    const result = typeof ctx.unrepresentable === "function"
        ? ctx.unrepresentable({ zodSchema: schema, path: params.path, message })
        : ctx.unrepresentable;
    if (result === "any")
        return false;
    if (result === undefined || result === "throw")
        throw new Error(message);
    Object.assign(json, result);
    return true;
}
// never rename this back to `process`: bundler polyfills inject a top-level `const process` that a lexical declaration of the same name collides with (#6397)
function to_json_schema_processSchema(schema, ctx, _params = { path: [], schemaPath: [] }) {
    var _a;
    const def = schema._zod.def;
    // check for schema in seens
    const seen = ctx.seen.get(schema);
    if (seen) {
        seen.count++;
        // check if cycle
        const isCycle = _params.schemaPath.includes(schema);
        if (isCycle) {
            seen.cycle = _params.path;
        }
        return seen.schema;
    }
    // initialize
    const result = { schema: {}, count: 1, cycle: undefined, path: _params.path };
    ctx.seen.set(schema, result);
    ctx.sharedDefsExtractedFor = undefined;
    ctx.sharedEmitDoneFor = undefined;
    // custom method overrides default behavior
    const overrideSchema = schema._zod.toJSONSchema?.();
    if (overrideSchema) {
        result.schema = overrideSchema;
    }
    else {
        const params = {
            ..._params,
            schemaPath: [..._params.schemaPath, schema],
            path: _params.path,
        };
        if (schema._zod.processJSONSchema) {
            schema._zod.processJSONSchema(ctx, result.schema, params);
        }
        else {
            const _json = result.schema;
            const processor = ctx.processors[def.type];
            if (!processor) {
                throw new Error(`[toJSONSchema]: Non-representable type encountered: ${def.type}`);
            }
            processor(schema, ctx, _json, params);
        }
        const parent = schema._zod.parent;
        if (parent) {
            // Also set ref if processor didn't (for inheritance)
            if (!result.ref)
                result.ref = parent;
            to_json_schema_processSchema(parent, ctx, params);
            ctx.seen.get(parent).isParent = true;
        }
    }
    // metadata
    const meta = ctx.metadataRegistry.get(schema);
    if (meta)
        assignProps(result.schema, meta);
    if (ctx.io === "input" && isTransforming(schema)) {
        // examples/defaults only apply to output type of pipe
        delete result.schema.examples;
        delete result.schema.default;
    }
    // set prefault as default
    if (ctx.io === "input" && "_prefault" in result.schema)
        (_a = result.schema).default ?? (_a.default = result.schema._prefault);
    delete result.schema._prefault;
    // pulling fresh from ctx.seen in case it was overwritten
    const _result = ctx.seen.get(schema);
    return _result.schema;
}
/** @deprecated Renamed to `processSchema`. An export alias declares no binding, so it is safe to keep. */

// Escape a reference token for use in a JSON Pointer fragment (RFC 6901): `~` becomes `~0` and `/` becomes `~1`. The `~` replacement must run first.
function encodeJSONPointerSegment(segment) {
    return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
function to_json_schema_extractDefs(ctx, schema
// params: EmitParams
) {
    // iterate over seen map;
    const root = ctx.seen.get(schema);
    if (!root)
        throw new Error("Unprocessed schema. This is a bug in Zod.");
    // With `external` set, every registered schema resolves through the external branch of `makeURI`, so the root branch below produces the same ref the external branch would — this pass is identical whichever schema it is called with, and only needs to run once.
    if (ctx.external && ctx.sharedDefsExtractedFor === ctx.external)
        return;
    // Track ids to detect duplicates across different schemas
    const idToSchema = new Map();
    for (const entry of ctx.seen.entries()) {
        const id = ctx.metadataRegistry.get(entry[0])?.id;
        if (id) {
            const existing = idToSchema.get(id);
            if (existing && existing !== entry[0]) {
                throw new Error(`Duplicate schema id "${id}" detected during JSON Schema conversion. Two different schemas cannot share the same id when converted together.`);
            }
            idToSchema.set(id, entry[0]);
        }
    }
    // returns a ref to the schema defId will be empty if the ref points to an external schema (or #)
    const makeURI = (entry) => {
        // comparing the seen objects because sometimes multiple schemas map to the same seen object. e.g. lazy
        // external is configured
        const defsSegment = ctx.target === "draft-2020-12" ? "$defs" : "definitions";
        if (ctx.external) {
            const externalId = ctx.external.registry.get(entry[0])?.id; // ?? "__shared";// `__schema${ctx.counter++}`;
            // check if schema is in the external registry
            const uriGenerator = ctx.external.uri ?? ((id) => id);
            if (externalId) {
                return { ref: uriGenerator(externalId) };
            }
            // otherwise, add to __shared
            const id = entry[1].defId ?? entry[1].schema.id ?? `schema${ctx.counter++}`;
            entry[1].defId = id; // set defId so it will be reused if needed
            return { defId: id, ref: `${uriGenerator("__shared")}#/${defsSegment}/${encodeJSONPointerSegment(id)}` };
        }
        const uriPrefix = `#`;
        const defUriPrefix = `${uriPrefix}/${defsSegment}/`;
        // an id-less root has nowhere to be extracted to, so it stays inline and self-references as `#`
        if (entry[1] === root && !entry[1].schema.id) {
            return { ref: uriPrefix };
        }
        // self-contained schema
        const defId = entry[1].schema.id ?? `__schema${ctx.counter++}`;
        return { defId, ref: defUriPrefix + encodeJSONPointerSegment(defId) };
    };
    // stored cached version in `def` property remove all properties, set $ref
    const extractToDef = (entry) => {
        // if the schema is already a reference, do not extract it
        if (entry[1].schema.$ref) {
            return;
        }
        const seen = entry[1];
        const { ref, defId } = makeURI(entry);
        seen.def = { ...seen.schema };
        // defId won't be set if the schema is a reference to an external schema or if the schema is the root schema
        if (defId)
            seen.defId = defId;
        // wipe away all properties except $ref
        const schema = seen.schema;
        for (const key in schema) {
            delete schema[key];
        }
        schema.$ref = ref;
    };
    // throw on cycles
    // break cycles
    if (ctx.cycles === "throw") {
        for (const entry of ctx.seen.entries()) {
            const seen = entry[1];
            if (seen.cycle) {
                throw new Error("Cycle detected: " +
                    `#/${seen.cycle?.join("/")}/<root>` +
                    '\n\nSet the `cycles` parameter to `"ref"` to resolve cyclical schemas with defs.');
            }
        }
    }
    // extract schemas into $defs
    for (const entry of ctx.seen.entries()) {
        const seen = entry[1];
        // convert root schema to # $ref
        if (schema === entry[0]) {
            extractToDef(entry); // this has special handling for the root schema
            continue;
        }
        // extract schemas that are in the external registry
        if (ctx.external) {
            const ext = ctx.external.registry.get(entry[0])?.id;
            if (schema !== entry[0] && ext) {
                extractToDef(entry);
                continue;
            }
        }
        // extract schemas with `id` meta
        const id = ctx.metadataRegistry.get(entry[0])?.id;
        if (id) {
            extractToDef(entry);
            continue;
        }
        // break cycles
        if (seen.cycle) {
            // any
            extractToDef(entry);
            continue;
        }
        // extract reused schemas
        if (seen.count > 1) {
            if (ctx.reused === "ref") {
                extractToDef(entry);
            }
        }
    }
    if (ctx.external)
        ctx.sharedDefsExtractedFor = ctx.external;
}
/** Rewrites `anyOf: [{type: "a"}, {type: "b"}]` to `type: ["a", "b"]`, which every JSON Schema draft treats as equivalent and most consumers render far better for the nullable case. Only branches that are a bare type assertion qualify — anything carrying a constraint, `$ref`, `const` or metadata is left alone. Runs after `flattenRef`, so a branch an override decorated or `$defs` extraction turned into a `$ref` is no longer bare and correctly stays in `anyOf`. `oneOf` is excluded: `integer` and `number` overlap, so "exactly one" and "at least one" are not the same there. OpenAPI 3.0 is excluded: its `type` must be a single string. */
function compactTypeUnion(schema) {
    const options = schema.anyOf;
    if (!Array.isArray(options) || options.length === 0 || schema.type !== undefined)
        return;
    const types = [];
    for (const option of options) {
        if (!option || typeof option !== "object")
            return;
        // A branch that is itself a compactible union folds into this one — nested `anyOf` and a flat `type` array say the same thing. Compacting it first also makes the result independent of the order this pass walks the seen map in.
        compactTypeUnion(option);
        const keys = Object.keys(option);
        if (keys.length !== 1 || keys[0] !== "type")
            return;
        const type = option.type;
        for (const member of Array.isArray(type) ? type : [type]) {
            if (typeof member !== "string")
                return;
            if (!types.includes(member))
                types.push(member);
        }
    }
    delete schema.anyOf;
    // A `type` array must be non-empty and unique (metaschema); a single member is spelled as a bare string.
    schema.type = types.length === 1 ? types[0] : types;
}
/** Keywords `foldIntersection` knows how to combine. Anything else — `$ref`, `patternProperties`,
 * an annotation like `description` — makes a member unfoldable, so a constraint this does not
 * understand leaves the `allOf` alone instead of being silently dropped or misattributed. */
const FOLDABLE_KEYS = new Set(["type", "properties", "required", "additionalProperties"]);
const UNION_KEYS = ["oneOf", "anyOf"];
/** A member's constraint on a key it does not declare itself. A `catchall` states one; `false`, an absent `additionalProperties`, and the empty schema a loose object emits state nothing. */
function undeclaredConstraint(member) {
    const extra = member.additionalProperties;
    if (extra === undefined || extra === false || typeof extra !== "object" || extra === null)
        return null;
    return Object.keys(extra).length ? extra : null;
}
/** Combines object members into the single object they describe together, or returns `null` if any of them carries a keyword outside {@link FOLDABLE_KEYS}. */
function foldObjects(members) {
    const objects = [];
    for (const member of members) {
        // A boolean subschema is legal JSON Schema and carries no keywords to fold.
        if (typeof member !== "object" || member.type !== "object")
            return null;
        for (const key in member) {
            if (!FOLDABLE_KEYS.has(key))
                return null;
        }
        objects.push(member);
    }
    const properties = {};
    const required = new Set();
    for (const object of objects) {
        for (const key in object.properties) {
            // `in` would report a `__proto__` key as already present via the prototype chain and skip it.
            if (Object.prototype.hasOwnProperty.call(properties, key))
                continue;
            // Every member constrains this key: the ones that declare it say how, and a `catchall` member constrains it too even though it does not name it. The key has to satisfy all of them, which is the same intersection one level down.
            const parts = [];
            for (const other of objects) {
                const part = other.properties?.[key] ?? undeclaredConstraint(other);
                if (part === null || part === undefined)
                    continue;
                if (!parts.some((seen) => JSON.stringify(seen) === JSON.stringify(part)))
                    parts.push(part);
            }
            const merged = parts.length === 1
                ? parts[0]
                : (foldObjects(parts) ?? { allOf: parts });
            util_assignProp(properties, key, merged);
        }
        for (const key of object.required ?? [])
            required.add(key);
    }
    const folded = { type: "object", properties };
    if (required.size)
        folded.required = [...required];
    // A key no member declares is rejected only when every member rejects it, so the fold is closed only when every member is. Otherwise it carries whatever the `catchall` members demand of such a key.
    if (objects.every((object) => object.additionalProperties === false)) {
        folded.additionalProperties = false;
    }
    else {
        const constraints = [];
        for (const object of objects) {
            const constraint = undeclaredConstraint(object);
            if (constraint && !constraints.some((seen) => JSON.stringify(seen) === JSON.stringify(constraint)))
                constraints.push(constraint);
        }
        if (constraints.length === 1)
            folded.additionalProperties = constraints[0];
        else if (constraints.length > 1)
            folded.additionalProperties = { allOf: constraints };
    }
    return folded;
}
/** `additionalProperties` in an `allOf` member sees only that member's own `properties`, so two
 * closed object members reject each other's keys and the schema validates nothing. Zod's parser
 * pools the key sets instead — `handleIntersectionResults` reports a key as unrecognized only when
 * *every* side rejects it — so the emitted schema has to pool them too, and folding the members
 * into one object is the encoding that says so on every target.
 *
 * This runs from `finalize`, after `extractDefs`, which is what keeps it clear of the `$ref`
 * machinery: a member extracted into `$defs` is already a `$ref` by now and declines to fold, so it
 * keeps its reference and its own closedness rather than being inlined as a stale copy. */
function foldIntersection(json) {
    const allOf = json.allOf;
    if (!Array.isArray(allOf) || allOf.length < 2)
        return;
    // An `override` runs before this pass and may have written object keywords onto the intersection itself. Those are deliberate, so decline rather than overwrite them.
    for (const key of FOLDABLE_KEYS)
        if (key in json)
            return;
    // An intersection distributes over a union: `A & (X | Y)` is `(A & X) | (A & Y)`. Only the first union is distributed over; a second one stays among the members every branch folds against, where it fails the object check and declines the whole intersection rather than multiplying out.
    const unions = allOf.filter((m) => UNION_KEYS.some((k) => Array.isArray(m[k])));
    let folded = null;
    if (!unions.length) {
        folded = foldObjects(allOf);
    }
    else {
        const union = unions[0];
        const keyword = UNION_KEYS.find((k) => Array.isArray(union[k]));
        if (Object.keys(union).length !== 1)
            return;
        const rest = allOf.filter((m) => m !== union);
        const branches = union[keyword].map((branch) => foldObjects([...rest, branch]));
        if (branches.some((b) => !b))
            return;
        folded = { [keyword]: branches };
    }
    if (!folded)
        return;
    delete json.allOf;
    assignProps(json, folded);
}
function to_json_schema_finalize(ctx, schema) {
    const root = ctx.seen.get(schema);
    if (!root)
        throw new Error("Unprocessed schema. This is a bug in Zod.");
    // flatten refs - inherit properties from parent schemas
    const flattenRef = (zodSchema) => {
        const seen = ctx.seen.get(zodSchema);
        // already processed
        if (seen.ref === null)
            return;
        const schema = seen.def ?? seen.schema;
        const _cached = { ...schema };
        const ref = seen.ref;
        seen.ref = null; // prevent infinite recursion
        if (ref) {
            flattenRef(ref);
            const refSeen = ctx.seen.get(ref);
            const refSchema = refSeen.schema;
            // merge referenced schema into current
            if (refSchema.$ref && (ctx.target === "draft-07" || ctx.target === "draft-04" || ctx.target === "openapi-3.0")) {
                // older drafts can't combine $ref with other properties
                schema.allOf = schema.allOf ?? [];
                schema.allOf.push(refSchema);
            }
            else {
                assignProps(schema, refSchema);
            }
            // restore child's own properties (child wins)
            assignProps(schema, _cached);
            const isParentRef = zodSchema._zod.parent === ref;
            // For parent chain, child is a refinement - remove parent-only properties
            if (isParentRef) {
                for (const key in schema) {
                    if (key === "$ref" || key === "allOf")
                        continue;
                    if (!(key in _cached)) {
                        delete schema[key];
                    }
                }
            }
            // When ref was extracted to $defs, remove properties that match the definition
            if (refSchema.$ref && refSeen.def) {
                for (const key in schema) {
                    if (key === "$ref" || key === "allOf")
                        continue;
                    if (key in refSeen.def && JSON.stringify(schema[key]) === JSON.stringify(refSeen.def[key])) {
                        delete schema[key];
                    }
                }
            }
        }
        // If parent was extracted (has $ref), propagate $ref to this schema. This handles cases like: readonly().meta({id}).describe() where processor sets ref to innerType but parent should be referenced
        const parent = zodSchema._zod.parent;
        if (parent && parent !== ref) {
            // Ensure parent is processed first so its def has inherited properties
            flattenRef(parent);
            const parentSeen = ctx.seen.get(parent);
            if (parentSeen?.schema.$ref) {
                schema.$ref = parentSeen.schema.$ref;
                // De-duplicate with parent's definition
                if (parentSeen.def) {
                    for (const key in schema) {
                        if (key === "$ref" || key === "allOf")
                            continue;
                        if (key in parentSeen.def && JSON.stringify(schema[key]) === JSON.stringify(parentSeen.def[key])) {
                            delete schema[key];
                        }
                    }
                }
            }
        }
        // execute overrides
        ctx.override({
            zodSchema: zodSchema,
            jsonSchema: schema,
            path: seen.path ?? [],
        });
    };
    // Flattening walks the whole map and clears each `ref` as it goes, so a second call over the same map is a no-op scan. Skip it outright once it has run for a registry conversion.
    if (!ctx.external || ctx.sharedEmitDoneFor !== ctx.external) {
        for (const entry of [...ctx.seen.entries()].reverse()) {
            flattenRef(entry[0]);
        }
        if (ctx.target !== "openapi-3.0") {
            for (const entry of ctx.seen.entries()) {
                compactTypeUnion(entry[1].def ?? entry[1].schema);
            }
        }
        for (const rewrite of ctx.deferred)
            rewrite();
        // After flattening, every member that was extracted is a `$ref`, so the fold sees the final shape. A schema that inherits an intersection — through `z.lazy`, or any `ref` chain — holds the same `allOf` array, so fold by array identity to catch every copy.
        if (ctx.intersections.length) {
            const carriers = new Map();
            for (const seen of ctx.seen.values()) {
                for (const json of [seen.schema, seen.def]) {
                    const allOf = json?.allOf;
                    if (!Array.isArray(allOf))
                        continue;
                    const existing = carriers.get(allOf);
                    if (existing)
                        existing.push(json);
                    else
                        carriers.set(allOf, [json]);
                }
            }
            for (const allOf of ctx.intersections) {
                for (const json of carriers.get(allOf) ?? [])
                    foldIntersection(json);
            }
        }
    }
    const result = {};
    if (ctx.target === "draft-2020-12") {
        result.$schema = "https://json-schema.org/draft/2020-12/schema";
    }
    else if (ctx.target === "draft-07") {
        result.$schema = "http://json-schema.org/draft-07/schema#";
    }
    else if (ctx.target === "draft-04") {
        result.$schema = "http://json-schema.org/draft-04/schema#";
    }
    else if (ctx.target === "openapi-3.0") {
        // OpenAPI 3.0 schema objects should not include a $schema property
    }
    else {
        // Arbitrary string values are allowed but won't have a $schema property set
    }
    if (ctx.external?.uri) {
        const id = ctx.external.registry.get(schema)?.id;
        if (!id)
            throw new Error("Schema is missing an `id` property");
        result.$id = ctx.external.uri(id);
    }
    // when the root was extracted into $defs, `root.schema` is the `$ref` wrapper and `root.def` is the body that now lives under $defs
    assignProps(result, root.defId ? root.schema : (root.def ?? root.schema));
    // The `id` in `.meta()` is a Zod-specific registration tag used to extract schemas into $defs — it is not user-facing JSON Schema metadata. Strip it from the output body where it would otherwise leak. The id is preserved implicitly via the $defs key (and via $ref paths).
    const rootMetaId = ctx.metadataRegistry.get(schema)?.id;
    if (rootMetaId !== undefined && result.id === rootMetaId)
        delete result.id;
    // build defs object. With `external`, `defs` is the shared object every schema writes into, so the same entries are reassigned on every call. Without it, `defs` is fresh per call and must be rebuilt.
    const defs = ctx.external?.defs ?? {};
    if (!ctx.external || ctx.sharedEmitDoneFor !== ctx.external) {
        for (const entry of ctx.seen.entries()) {
            const seen = entry[1];
            if (seen.def && seen.defId) {
                if (seen.def.id === seen.defId)
                    delete seen.def.id;
                util_assignProp(defs, seen.defId, seen.def);
            }
        }
    }
    if (ctx.external)
        ctx.sharedEmitDoneFor = ctx.external;
    // set definitions in result
    if (ctx.external) {
    }
    else {
        if (Object.keys(defs).length > 0) {
            if (ctx.target === "draft-2020-12") {
                result.$defs = defs;
            }
            else {
                result.definitions = defs;
            }
        }
    }
    try {
        // this "finalizes" this schema and ensures all cycles are removed each call to finalize() is functionally independent though the seen map is shared
        const finalized = JSON.parse(JSON.stringify(result));
        Object.defineProperty(finalized, "~standard", {
            value: {
                ...schema["~standard"],
                jsonSchema: {
                    input: createStandardJSONSchemaMethod(schema, "input", ctx.processors),
                    output: createStandardJSONSchemaMethod(schema, "output", ctx.processors),
                },
            },
            enumerable: false,
            writable: false,
        });
        return finalized;
    }
    catch (_err) {
        throw new Error("Error converting schema to JSON.");
    }
}
function isTransforming(_schema, _ctx) {
    const ctx = _ctx ?? { seen: new Set() };
    if (ctx.seen.has(_schema))
        return false;
    ctx.seen.add(_schema);
    const def = _schema._zod.def;
    if (def.type === "transform")
        return true;
    if (def.type === "array")
        return isTransforming(def.element, ctx);
    if (def.type === "set")
        return isTransforming(def.valueType, ctx);
    if (def.type === "lazy")
        return isTransforming(def.getter(), ctx);
    if (def.type === "promise" ||
        def.type === "optional" ||
        def.type === "nonoptional" ||
        def.type === "nullable" ||
        def.type === "readonly" ||
        def.type === "default" ||
        def.type === "prefault" ||
        def.type === "catch") {
        return isTransforming(def.innerType, ctx);
    }
    if (def.type === "intersection") {
        return isTransforming(def.left, ctx) || isTransforming(def.right, ctx);
    }
    if (def.type === "record" || def.type === "map") {
        return isTransforming(def.keyType, ctx) || isTransforming(def.valueType, ctx);
    }
    if (def.type === "pipe") {
        if (_schema._zod.traits.has("$ZodCodec"))
            return true;
        return isTransforming(def.in, ctx) || isTransforming(def.out, ctx);
    }
    if (def.type === "object") {
        for (const key in def.shape) {
            if (isTransforming(def.shape[key], ctx))
                return true;
        }
        return false;
    }
    if (def.type === "union") {
        for (const option of def.options) {
            if (isTransforming(option, ctx))
                return true;
        }
        return false;
    }
    if (def.type === "tuple") {
        for (const item of def.items) {
            if (isTransforming(item, ctx))
                return true;
        }
        if (def.rest && isTransforming(def.rest, ctx))
            return true;
        return false;
    }
    return false;
}
/**
 * Creates a toJSONSchema method for a schema instance.
 * This encapsulates the logic of initializing context, processing, extracting defs, and finalizing.
 */
const createToJSONSchemaMethod = (schema, processors = {}) => (params) => {
    const ctx = to_json_schema_initializeContext({ ...params, processors });
    to_json_schema_processSchema(schema, ctx);
    to_json_schema_extractDefs(ctx, schema);
    return to_json_schema_finalize(ctx, schema);
};
const createStandardJSONSchemaMethod = (schema, io, processors = {}) => (params) => {
    const { libraryOptions, target } = params ?? {};
    const ctx = to_json_schema_initializeContext({ ...(libraryOptions ?? {}), target, io, processors });
    to_json_schema_processSchema(schema, ctx);
    to_json_schema_extractDefs(ctx, schema);
    return to_json_schema_finalize(ctx, schema);
};

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/json-schema-processors.js




const narrowMin = (agg, key, value) => {
    if (agg[key] === undefined || value > agg[key])
        agg[key] = value;
};
const narrowMax = (agg, key, value) => {
    if (agg[key] === undefined || value < agg[key])
        agg[key] = value;
};
const narrowBoth = (agg, value) => {
    narrowMin(agg, "minimum", value);
    narrowMax(agg, "maximum", value);
};
const addDivisor = (agg, value) => {
    agg.multipleOf ?? (agg.multipleOf = []);
    if (!agg.multipleOf.includes(value))
        agg.multipleOf.push(value);
};
const addPattern = (agg, pattern) => {
    agg.patterns ?? (agg.patterns = new Set());
    agg.patterns.add(pattern);
};
const intersectMime = (agg, mime) => {
    agg.mime = agg.mime ? agg.mime.filter((m) => mime.includes(m)) : [...mime];
};
// last-wins, matching the bag's historical write order; the flag keeps an integer format from being lost to a later float one
const setFormat = (agg, format) => {
    agg.format = format;
    if (format.includes("int"))
        agg.isInt = true;
};
const minContributor = (agg, def) => narrowMin(agg, "minimum", def.minimum);
const maxContributor = (agg, def) => narrowMax(agg, "maximum", def.maximum);
const formatContributor = (ranges) => (agg, def) => {
    setFormat(agg, def.format);
    const [minimum, maximum] = ranges[def.format];
    narrowMin(agg, "minimum", minimum);
    narrowMax(agg, "maximum", maximum);
};
const contributors = {
    greater_than: (agg, def) => narrowMin(agg, def.inclusive ? "minimum" : "exclusiveMinimum", def.value),
    less_than: (agg, def) => narrowMax(agg, def.inclusive ? "maximum" : "exclusiveMaximum", def.value),
    multiple_of: (agg, def) => addDivisor(agg, def.value),
    number_format: formatContributor(NUMBER_FORMAT_RANGES),
    bigint_format: formatContributor(BIGINT_FORMAT_RANGES),
    min_length: minContributor,
    max_length: maxContributor,
    length_equals: (agg, def) => narrowBoth(agg, def.length),
    min_size: minContributor,
    max_size: maxContributor,
    size_equals: (agg, def) => narrowBoth(agg, def.size),
    string_format: (agg, def) => {
        setFormat(agg, def.format);
        if (def.pattern)
            addPattern(agg, def.pattern);
        if (def.format === "base64" || def.format === "base64url")
            agg.contentEncoding = def.format;
        if (def.local || def.precision === -1)
            agg.laxFormat = true;
    },
    mime_type: (agg, def) => intersectMime(agg, def.mime),
};
function aggregateChecks(schema) {
    const agg = {};
    const def = schema._zod.def;
    // a format schema is its own first check, same rule as $ZodType init
    const list = schema._zod.traits.has("$ZodCheck")
        ? [schema, ...(def.checks ?? [])]
        : (def.checks ?? []);
    for (const ch of list)
        contributors[ch._zod.def.check]?.(agg, ch._zod.def);
    // reconcile with the bag so third-party onattach contributions still land; first-party residue is never tighter than the fold, so merging it back is idempotent for one and additive for the other
    const bag = schema._zod.bag;
    if (bag.minimum !== undefined)
        narrowMin(agg, "minimum", bag.minimum);
    if (bag.exclusiveMinimum !== undefined)
        narrowMin(agg, "exclusiveMinimum", bag.exclusiveMinimum);
    if (bag.maximum !== undefined)
        narrowMax(agg, "maximum", bag.maximum);
    if (bag.exclusiveMaximum !== undefined)
        narrowMax(agg, "exclusiveMaximum", bag.exclusiveMaximum);
    if (bag.multipleOf !== undefined)
        addDivisor(agg, bag.multipleOf);
    if (bag.format !== undefined) {
        agg.format ?? (agg.format = bag.format);
        if (bag.format.includes("int"))
            agg.isInt = true;
    }
    if (bag.mime)
        intersectMime(agg, bag.mime);
    for (const pattern of bag.patterns ?? [])
        addPattern(agg, pattern);
    return agg;
}
const formatMap = {
    guid: "uuid",
    url: "uri",
    datetime: "date-time",
    json_string: "json-string",
    regex: "", // do not set
};
// ==================== SIMPLE TYPE PROCESSORS ====================
// the runtime patterns are lax so parse paths never overflow the regex stack; the emitted schema swaps in the exact block forms, which zod itself never executes
const exactPatterns = new Map([
    [base64Charset, base64],
    [base64urlCharset, base64url],
]);
const exactPattern = (p) => exactPatterns.get(p) ?? p;
const stringProcessor = (schema, ctx, _json, _params) => {
    const json = _json;
    json.type = "string";
    const { minimum, maximum, format, patterns, contentEncoding, laxFormat } = aggregateChecks(schema);
    if (typeof minimum === "number")
        json.minLength = minimum;
    if (typeof maximum === "number")
        json.maxLength = maximum;
    // custom pattern overrides format
    if (format) {
        json.format = formatMap[format] ?? format;
        if (json.format === "")
            delete json.format; // empty format is not valid
        // `z.iso.time()` is never full-time, and `laxFormat` carries the datetime shapes that also accept what their keyword forbids
        if (format === "time" || laxFormat) {
            delete json.format;
        }
    }
    if (contentEncoding)
        json.contentEncoding = contentEncoding;
    if (patterns && patterns.size > 0) {
        const patternList = [...patterns].map(exactPattern);
        if (patternList.length === 1)
            json.pattern = patternList[0].source;
        else if (patternList.length > 1) {
            json.allOf = [
                ...patternList.map((regex) => ({
                    ...(ctx.target === "draft-07" || ctx.target === "draft-04" || ctx.target === "openapi-3.0"
                        ? { type: "string" }
                        : {}),
                    pattern: regex.source,
                })),
            ];
        }
    }
};
const numberProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const { minimum, maximum, multipleOf, exclusiveMaximum, exclusiveMinimum, isInt } = aggregateChecks(schema);
    json.type = isInt ? "integer" : "number";
    // when both minimum and exclusiveMinimum exist, pick the more restrictive one
    const exMin = typeof exclusiveMinimum === "number" && exclusiveMinimum >= (minimum ?? Number.NEGATIVE_INFINITY);
    const exMax = typeof exclusiveMaximum === "number" && exclusiveMaximum <= (maximum ?? Number.POSITIVE_INFINITY);
    const legacy = ctx.target === "draft-04" || ctx.target === "openapi-3.0";
    if (exMin) {
        if (legacy) {
            json.minimum = exclusiveMinimum;
            json.exclusiveMinimum = true;
        }
        else {
            json.exclusiveMinimum = exclusiveMinimum;
        }
    }
    else if (typeof minimum === "number") {
        json.minimum = minimum;
    }
    if (exMax) {
        if (legacy) {
            json.maximum = exclusiveMaximum;
            json.exclusiveMaximum = true;
        }
        else {
            json.exclusiveMaximum = exclusiveMaximum;
        }
    }
    else if (typeof maximum === "number") {
        json.maximum = maximum;
    }
    if (multipleOf) {
        // JSON Schema requires a divisor strictly greater than zero, and a non-finite one does not survive JSON at all. A negative divisor accepts exactly what its absolute value accepts, so it still maps; zero, NaN and Infinity have no keyword form.
        const divisors = new Set();
        for (const divisor of multipleOf) {
            if (Number.isFinite(divisor) && divisor !== 0)
                divisors.add(Math.abs(divisor));
            else
                handleUnrepresentable(schema, ctx, json, params, `A multipleOf divisor of ${divisor} cannot be represented in JSON Schema`);
        }
        // chained divisors are a conjunction the keyword cannot carry alone, so extras ride an allOf, same as stacked patterns
        const [first, ...rest] = divisors;
        if (first !== undefined)
            json.multipleOf = first;
        if (rest.length)
            json.allOf = [...(json.allOf ?? []), ...rest.map((m) => ({ multipleOf: m }))];
    }
};
const booleanProcessor = (_schema, _ctx, json, _params) => {
    json.type = "boolean";
};
const bigintProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "BigInt cannot be represented in JSON Schema");
};
const symbolProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Symbols cannot be represented in JSON Schema");
};
const nullProcessor = (_schema, ctx, json, _params) => {
    if (ctx.target === "openapi-3.0") {
        json.type = "string";
        json.nullable = true;
        json.enum = [null];
    }
    else {
        json.type = "null";
    }
};
const undefinedProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Undefined cannot be represented in JSON Schema");
};
const voidProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Void cannot be represented in JSON Schema");
};
const neverProcessor = (_schema, _ctx, json, _params) => {
    json.not = {};
};
const anyProcessor = (_schema, _ctx, _json, _params) => {
    // empty schema accepts anything
};
const unknownProcessor = (_schema, _ctx, _json, _params) => {
    // empty schema accepts anything
};
const dateProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Date cannot be represented in JSON Schema");
};
const enumProcessor = (schema, _ctx, json, _params) => {
    const def = schema._zod.def;
    const values = getEnumValues(def.entries);
    // an empty enum accepts nothing, same as z.never()
    if (values.length === 0) {
        json.not = {};
        return;
    }
    // Number enums can have both string and number values
    if (values.every((v) => typeof v === "number"))
        json.type = "number";
    if (values.every((v) => typeof v === "string"))
        json.type = "string";
    json.enum = values;
};
const literalProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    // a literal with no values accepts nothing, same as z.never()
    if (def.values.length === 0) {
        json.not = {};
        return;
    }
    const vals = [];
    for (const val of def.values) {
        if (val === undefined) {
            // a custom schema replaces the whole literal, so there is nothing left to accumulate
            if (handleUnrepresentable(schema, ctx, json, params, "Literal `undefined` cannot be represented in JSON Schema"))
                return;
            // otherwise do not add to vals
        }
        else if (typeof val === "bigint") {
            if (handleUnrepresentable(schema, ctx, json, params, "BigInt literals cannot be represented in JSON Schema"))
                return;
            vals.push(Number(val));
        }
        else {
            vals.push(val);
        }
    }
    if (vals.length === 0) {
        // do nothing (an undefined literal was stripped)
    }
    else if (vals.length === 1) {
        const val = vals[0];
        json.type = val === null ? "null" : typeof val;
        if (ctx.target === "draft-04" || ctx.target === "openapi-3.0") {
            json.enum = [val];
        }
        else {
            json.const = val;
        }
    }
    else {
        if (vals.every((v) => typeof v === "number"))
            json.type = "number";
        if (vals.every((v) => typeof v === "string"))
            json.type = "string";
        if (vals.every((v) => typeof v === "boolean"))
            json.type = "boolean";
        if (vals.every((v) => v === null))
            json.type = "null";
        json.enum = vals;
    }
};
const nanProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "NaN cannot be represented in JSON Schema");
};
const templateLiteralProcessor = (schema, _ctx, json, _params) => {
    const _json = json;
    const pattern = schema._zod.pattern;
    if (!pattern)
        throw new Error("Pattern not found in template literal");
    _json.type = "string";
    _json.pattern = pattern.source;
};
const fileProcessor = (schema, _ctx, json, _params) => {
    const _json = json;
    _json.type = "string";
    _json.format = "binary";
    _json.contentEncoding = "binary";
    const { minimum, maximum, mime } = aggregateChecks(schema);
    if (minimum !== undefined)
        _json.minLength = minimum;
    if (maximum !== undefined)
        _json.maxLength = maximum;
    if (!mime)
        return;
    // an empty intersection means the mime checks share no value, so nothing passes at runtime; `anyOf` must be non-empty, so the false schema is `not: {}`
    if (mime.length === 0)
        _json.not = {};
    else if (mime.length === 1)
        _json.contentMediaType = mime[0];
    // only contentMediaType differs, so the shared props stay at the root
    else
        _json.anyOf = mime.map((m) => ({ contentMediaType: m }));
};
const successProcessor = (_schema, _ctx, json, _params) => {
    json.type = "boolean";
};
const customProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Custom types cannot be represented in JSON Schema");
};
const functionProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Function types cannot be represented in JSON Schema");
};
const transformProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Transforms cannot be represented in JSON Schema");
};
const mapProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Map cannot be represented in JSON Schema");
};
const setProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Set cannot be represented in JSON Schema");
};
// ==================== COMPOSITE TYPE PROCESSORS ====================
const arrayProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const def = schema._zod.def;
    const { minimum, maximum } = aggregateChecks(schema);
    if (typeof minimum === "number")
        json.minItems = minimum;
    if (typeof maximum === "number")
        json.maxItems = maximum;
    json.type = "array";
    json.items = to_json_schema_processSchema(def.element, ctx, {
        ...params,
        path: [...params.path, "items"],
    });
};
// Transform and catch set `optin = "optional"` at runtime so the parser lets them observe an
// absent key, but their declared input type stays required. An input JSON Schema describes the
// declared type, so resolve past them to the schema that actually carries the optionality.
// Used by both `objectProcessor` (for `required`) and `tupleProcessor` (for `minItems`); see
// wiki/optionality.md, "The JSON Schema emitter reads the *static* value".
function inputOptin(schema) {
    const def = schema._zod.def;
    if (def.type === "pipe" && def.in._zod.traits.has("$ZodTransform")) {
        return inputOptin(def.out);
    }
    if (def.type === "catch") {
        return inputOptin(def.innerType);
    }
    return schema._zod.optin;
}
const objectProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const def = schema._zod.def;
    const shape = def.shape;
    // dropping it while still emitting `additionalProperties: false` would emit a schema that rejects data this one requires
    const symbolKeys = Object.getOwnPropertySymbols(shape);
    if (symbolKeys.length &&
        handleUnrepresentable(schema, ctx, json, params, "Symbol keys cannot be represented in JSON Schema")) {
        return;
    }
    json.type = "object";
    json.properties = {};
    for (const key in shape) {
        // assignProp so a __proto__ key becomes an own property instead of hitting the inherited setter on the plain {} we build into
        util_assignProp(json.properties, key, to_json_schema_processSchema(shape[key], ctx, {
            ...params,
            path: [...params.path, "properties", key],
        }));
    }
    // required keys
    const requiredKeys = [];
    for (const key of Object.keys(shape)) {
        const field = def.shape[key];
        if (ctx.io === "input" ? inputOptin(field) === undefined : field._zod.optout === undefined) {
            requiredKeys.push(key);
        }
    }
    if (requiredKeys.length > 0) {
        json.required = requiredKeys;
    }
    // catchall
    if (def.catchall?._zod.def.type === "never") {
        // strict
        json.additionalProperties = false;
    }
    else if (!def.catchall) {
        // regular
        if (ctx.io === "output")
            json.additionalProperties = false;
    }
    else if (def.catchall) {
        json.additionalProperties = to_json_schema_processSchema(def.catchall, ctx, {
            ...params,
            path: [...params.path, "additionalProperties"],
        });
    }
};
const unionProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    // Exclusive unions (inclusive === false) use oneOf (exactly one match) instead of anyOf (one or more matches). This includes both z.xor() and discriminated unions
    const isExclusive = def.inclusive === false;
    const options = def.options.map((x, i) => to_json_schema_processSchema(x, ctx, {
        ...params,
        path: [...params.path, isExclusive ? "oneOf" : "anyOf", i],
    }));
    if (isExclusive) {
        json.oneOf = options;
    }
    else {
        json.anyOf = options;
    }
};
const intersectionProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    const a = to_json_schema_processSchema(def.left, ctx, {
        ...params,
        path: [...params.path, "allOf", 0],
    });
    const b = to_json_schema_processSchema(def.right, ctx, {
        ...params,
        path: [...params.path, "allOf", 1],
    });
    const isSimpleIntersection = (val) => "allOf" in val && Object.keys(val).length === 1;
    const allOf = [
        ...(isSimpleIntersection(a) ? a.allOf : [a]),
        ...(isSimpleIntersection(b) ? b.allOf : [b]),
    ];
    json.allOf = allOf;
    // Recorded innermost first, so a nested intersection has already folded by the time this one is considered. The array is the handle rather than the schema, because a wrapper that inherits this schema shares the same array; `finalize` folds every object holding it. See `foldIntersection`.
    ctx.intersections.push(allOf);
};
const tupleProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const def = schema._zod.def;
    json.type = "array";
    const prefixPath = ctx.target === "draft-2020-12" ? "prefixItems" : "items";
    const restPath = ctx.target === "draft-2020-12" ? "items" : ctx.target === "openapi-3.0" ? "items" : "additionalItems";
    const prefixItems = def.items.map((x, i) => to_json_schema_processSchema(x, ctx, {
        ...params,
        path: [...params.path, prefixPath, i],
    }));
    const rest = def.rest
        ? to_json_schema_processSchema(def.rest, ctx, {
            ...params,
            path: [...params.path, restPath, ...(ctx.target === "openapi-3.0" ? [def.items.length] : [])],
        })
        : null;
    let minItems = def.items.length;
    while (minItems > 0) {
        const item = def.items[minItems - 1];
        const optional = ctx.io === "input" ? inputOptin(item) !== undefined : item._zod.optout === "optional";
        if (!optional)
            break;
        minItems--;
    }
    const maxItems = def.items.length;
    const isClosed = !def.rest;
    if (ctx.target === "draft-2020-12") {
        json.prefixItems = prefixItems;
        if (isClosed) {
            json.items = false;
        }
        else if (rest) {
            json.items = rest;
        }
        if (minItems > 0)
            json.minItems = minItems;
        if (isClosed)
            json.maxItems = maxItems;
    }
    else if (ctx.target === "openapi-3.0") {
        json.items = {
            anyOf: prefixItems,
        };
        if (rest) {
            json.items.anyOf.push(rest);
        }
        if (minItems > 0)
            json.minItems = minItems;
        if (isClosed)
            json.maxItems = maxItems;
    }
    else {
        json.items = prefixItems;
        if (isClosed) {
            json.additionalItems = false;
        }
        else if (rest) {
            json.additionalItems = rest;
        }
        if (minItems > 0)
            json.minItems = minItems;
        if (isClosed)
            json.maxItems = maxItems;
    }
    // explicit user-defined length checks take precedence
    const { minimum, maximum } = aggregateChecks(schema);
    if (typeof minimum === "number")
        json.minItems = minimum;
    if (typeof maximum === "number")
        json.maxItems = maximum;
};
/** JSON object keys are always strings, so a numeric record key schema is re-expressed over the
 * numeric-string form the record parser matches. Deferred to `finalize`, after the flatten: a key
 * behind a wrapper only carries its own `type` before then, and a union key only has its branches.
 *
 * A numeric bound cannot apply to a property name, so `minimum` and its siblings are dropped rather
 * than carried over: keeping them beside `type: "string"` reproduces the match-nothing schema this
 * exists to fix. A key that carries one therefore emits wider than the record parses — `z.record(z.number().min(5), V)`
 * accepts `"3"` — which is the deliberate trade, since throwing on it would reject an ordinary schema
 * outright. */
function stringifyKeyNames(bySchema, json, visited) {
    // an extracted key that rewrites cannot go on sharing its definition — the string form a key position needs is not the number form every other reference wants — so it inlines. One that does not rewrite keeps the `$ref`.
    if (json.$ref) {
        // a recursive key holds its own reference inside its definition, so a node already on the path is left alone rather than resolved again
        if (visited.has(json))
            return json;
        visited.add(json);
        const def = bySchema.get(json)?.def;
        if (!def)
            return json;
        const inlined = stringifyKeyNames(bySchema, def, visited);
        return inlined === def ? json : inlined;
    }
    for (const keyword of ["anyOf", "oneOf"]) {
        const branches = json[keyword];
        if (!Array.isArray(branches))
            continue;
        const mapped = branches.map((branch) => stringifyKeyNames(bySchema, branch, visited));
        // rebuilding regardless would detach a key that had nothing to re-express, dropping its `$ref` and leaking the internal `id`
        if (mapped.some((branch, i) => branch !== branches[i]))
            json = { ...json, [keyword]: mapped };
    }
    // a member that already admits a string leaves the key unconstrained, so the node's own type re-expresses only when every member is numeric
    const types = Array.isArray(json.type) ? json.type : [json.type];
    const numericType = !types.includes("string") && types.some((t) => t === "number" || t === "integer");
    // a heterogeneous key carries no type at all, so its numeric members are caught here instead
    const values = json.enum ?? (json.const !== undefined ? [json.const] : undefined);
    if (!numericType && !values?.some((v) => typeof v === "number"))
        return json;
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, format, id, ...rest } = json;
    if (rest.enum)
        rest.enum = rest.enum.map((v) => (typeof v === "number" ? String(v) : v));
    else if (typeof rest.const === "number")
        rest.const = String(rest.const);
    // a heterogeneous key keeps its absent type: the stringified members already say what a key may be
    if (!numericType)
        return rest;
    rest.type = "string";
    if (!values)
        rest.pattern = (types.includes("number") ? number : integer).source;
    return rest;
}
/** Every record of one conversion, so the carriers are found in a single pass rather than once per record. */
const pendingRecords = new WeakMap();
function rewriteKeyNames(ctx) {
    // an extracted key is resolved by the object `extractToDef` left in its place, so the map is built once rather than searched per reference. `_zod.toJSONSchema` can hand the same object to two schemas, so the first entry carrying a body wins, as a search would have found it.
    const bySchema = new Map();
    for (const entry of ctx.seen.values()) {
        if (entry.def && !bySchema.has(entry.schema))
            bySchema.set(entry.schema, entry);
    }
    const rewrites = new Map();
    for (const record of pendingRecords.get(ctx) ?? []) {
        const seen = ctx.seen.get(record);
        const names = (seen?.def ?? seen?.schema)?.propertyNames;
        if (!names || names === true || rewrites.has(names))
            continue;
        const rewritten = stringifyKeyNames(bySchema, names, new Set());
        if (rewritten !== names)
            rewrites.set(names, rewritten);
    }
    if (!rewrites.size)
        return;
    // the flatten has already copied each record's own properties onto every wrapper by reference, and an extracted body is another such copy, so every carrier holding a rewritten key is updated together
    for (const entry of ctx.seen.values()) {
        for (const carrier of [entry.schema, entry.def]) {
            const rewritten = carrier && rewrites.get(carrier.propertyNames);
            if (rewritten)
                carrier.propertyNames = rewritten;
        }
    }
}
const recordProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const def = schema._zod.def;
    json.type = "object";
    // For looseRecord with regex patterns, use patternProperties. This correctly represents "only validate keys matching the pattern" semantics and composes well with allOf (intersections)
    const keyType = def.keyType;
    const patterns = aggregateChecks(keyType).patterns;
    if (def.mode === "loose" && patterns && patterns.size > 0) {
        // Use patternProperties for looseRecord with regex patterns
        const valueSchema = to_json_schema_processSchema(def.valueType, ctx, {
            ...params,
            path: [...params.path, "patternProperties", "*"],
        });
        json.patternProperties = {};
        for (const pattern of patterns) {
            util_assignProp(json.patternProperties, exactPattern(pattern).source, valueSchema);
        }
    }
    else {
        // Default behavior: use propertyNames + additionalProperties
        if (ctx.target === "draft-07" || ctx.target === "draft-2020-12") {
            json.propertyNames = to_json_schema_processSchema(def.keyType, ctx, {
                ...params,
                path: [...params.path, "propertyNames"],
            });
            let pending = pendingRecords.get(ctx);
            if (!pending) {
                pending = [];
                pendingRecords.set(ctx, pending);
                ctx.deferred.push(() => rewriteKeyNames(ctx));
            }
            pending.push(schema);
        }
        json.additionalProperties = to_json_schema_processSchema(def.valueType, ctx, {
            ...params,
            path: [...params.path, "additionalProperties"],
        });
    }
    // Add required for keys with discrete values (enum, literal, etc.)
    const keyValues = keyType._zod.values;
    // Every key shares one value schema, so an optional-in value makes the whole key set omittable on input. Output keeps them: the exhaustive branch assigns every key, even one whose value came back undefined.
    const omittableOnInput = ctx.io === "input" && inputOptin(def.valueType) !== undefined;
    if (keyValues && !def.partial && !omittableOnInput) {
        const validKeyValues = [...keyValues].filter((v) => typeof v === "string" || typeof v === "number");
        if (validKeyValues.length > 0) {
            json.required = validKeyValues.map(String);
        }
    }
};
const nullableProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    const inner = to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    if (ctx.target === "openapi-3.0") {
        seen.ref = def.innerType;
        json.nullable = true;
    }
    else {
        json.anyOf = [inner, { type: "null" }];
    }
};
const nonoptionalProcessor = (schema, ctx, _json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
};
/** Round-trips a default value through JSON so the emitted schema is guaranteed to be valid JSON.
 * A BigInt has no reliable encoding, so it goes through `unrepresentable` like any other
 * unrepresentable value. Returns a sentinel when the caller must not write a default of its own. */
const UNREPRESENTABLE_DEFAULT = Symbol();
function serializeDefaultValue(value, schema, ctx, json, params) {
    let unrepresentable = false;
    const serialized = JSON.stringify(value, (_, val) => {
        if (typeof val !== "bigint")
            return val;
        unrepresentable = true;
        return null;
    });
    if (!unrepresentable)
        return JSON.parse(serialized);
    handleUnrepresentable(schema, ctx, json, params, "BigInt defaults cannot be represented in JSON Schema");
    return UNREPRESENTABLE_DEFAULT;
}
const defaultProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
    const value = serializeDefaultValue(def.defaultValue, schema, ctx, json, params);
    if (value !== UNREPRESENTABLE_DEFAULT)
        json.default = value;
};
const prefaultProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
    if (ctx.io !== "input")
        return;
    const value = serializeDefaultValue(def.defaultValue, schema, ctx, json, params);
    if (value !== UNREPRESENTABLE_DEFAULT)
        json._prefault = value;
};
const catchProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
    let catchValue;
    try {
        catchValue = def.catchValue(undefined);
    }
    catch {
        handleUnrepresentable(schema, ctx, json, params, "Dynamic catch values are not supported in JSON Schema");
        return;
    }
    json.default = catchValue;
};
const pipeProcessor = (schema, ctx, _json, params) => {
    const def = schema._zod.def;
    const inIsTransform = def.in._zod.traits.has("$ZodTransform");
    const innerType = ctx.io === "input" ? (inIsTransform ? def.out : def.in) : def.out;
    to_json_schema_processSchema(innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = innerType;
};
const readonlyProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
    json.readOnly = true;
};
const promiseProcessor = (schema, ctx, _json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
};
const optionalProcessor = (schema, ctx, _json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
};
const lazyProcessor = (schema, ctx, _json, params) => {
    const innerType = schema._zod.innerType;
    to_json_schema_processSchema(innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = innerType;
};
// ==================== ALL PROCESSORS ====================
const allProcessors = {
    string: stringProcessor,
    number: numberProcessor,
    boolean: booleanProcessor,
    bigint: bigintProcessor,
    symbol: symbolProcessor,
    null: nullProcessor,
    undefined: undefinedProcessor,
    void: voidProcessor,
    never: neverProcessor,
    any: anyProcessor,
    unknown: unknownProcessor,
    date: dateProcessor,
    enum: enumProcessor,
    literal: literalProcessor,
    nan: nanProcessor,
    template_literal: templateLiteralProcessor,
    file: fileProcessor,
    success: successProcessor,
    custom: customProcessor,
    function: functionProcessor,
    transform: transformProcessor,
    map: mapProcessor,
    set: setProcessor,
    array: arrayProcessor,
    object: objectProcessor,
    union: unionProcessor,
    intersection: intersectionProcessor,
    tuple: tupleProcessor,
    record: recordProcessor,
    nullable: nullableProcessor,
    nonoptional: nonoptionalProcessor,
    default: defaultProcessor,
    prefault: prefaultProcessor,
    catch: catchProcessor,
    pipe: pipeProcessor,
    readonly: readonlyProcessor,
    promise: promiseProcessor,
    optional: optionalProcessor,
    lazy: lazyProcessor,
};
function toJSONSchema(input, params) {
    if ("_idmap" in input) {
        // Registry case
        const registry = input;
        const ctx = initializeContext({ ...params, processors: allProcessors });
        const defs = {};
        // First pass: process all schemas to build the seen map
        for (const entry of registry._idmap.entries()) {
            const [_, schema] = entry;
            processSchema(schema, ctx);
        }
        const schemas = {};
        const external = {
            registry,
            uri: params?.uri,
            defs,
        };
        // Update the context with external configuration
        ctx.external = external;
        // Second pass: emit each schema
        for (const entry of registry._idmap.entries()) {
            const [key, schema] = entry;
            extractDefs(ctx, schema);
            assignProp(schemas, key, finalize(ctx, schema));
        }
        if (Object.keys(defs).length > 0) {
            const defsSegment = ctx.target === "draft-2020-12" ? "$defs" : "definitions";
            schemas.__shared = {
                [defsSegment]: defs,
            };
        }
        return { schemas };
    }
    // Single schema case
    const ctx = initializeContext({ ...params, processors: allProcessors });
    processSchema(input, ctx);
    extractDefs(ctx, input);
    return finalize(ctx, input);
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/locales/en.js

const error = () => {
    const Sizable = {
        string: { unit: "characters", verb: "to have" },
        file: { unit: "bytes", verb: "to have" },
        array: { unit: "items", verb: "to have" },
        set: { unit: "items", verb: "to have" },
        map: { unit: "entries", verb: "to have" },
    };
    function getSizing(origin) {
        return Sizable[origin] ?? null;
    }
    const FormatDictionary = {
        regex: "input",
        email: "email address",
        url: "URL",
        emoji: "emoji",
        uuid: "UUID",
        uuidv4: "UUIDv4",
        uuidv6: "UUIDv6",
        nanoid: "nanoid",
        guid: "GUID",
        cuid: "cuid",
        cuid2: "cuid2",
        ulid: "ULID",
        xid: "XID",
        ksuid: "KSUID",
        datetime: "ISO datetime",
        date: "ISO date",
        time: "ISO time",
        duration: "ISO duration",
        ipv4: "IPv4 address",
        ipv6: "IPv6 address",
        mac: "MAC address",
        cidrv4: "IPv4 range",
        cidrv6: "IPv6 range",
        base64: "base64-encoded string",
        base64url: "base64url-encoded string",
        json_string: "JSON string",
        e164: "E.164 number",
        currency_code: "currency code",
        credit_card: "credit card number",
        iban: "IBAN",
        jwt: "JWT",
        template_literal: "input",
    };
    // type names: missing keys = do not translate (use raw value via ?? fallback)
    const TypeDictionary = {
        // Compatibility: "nan" -> "NaN" for display
        nan: "NaN",
        // All other type names omitted - they fall back to raw values via ?? operator
    };
    function getTypeName(type, input) {
        if (type === "number" && typeof input === "number" && !Number.isFinite(input)) {
            return String(input);
        }
        return TypeDictionary[type] ?? type;
    }
    return (issue) => {
        switch (issue.code) {
            case "invalid_type": {
                const expected = getTypeName(issue.expected);
                const receivedType = parsedType(issue.input);
                const received = getTypeName(receivedType, issue.input);
                return `Invalid input: expected ${expected}, received ${received}`;
            }
            case "invalid_value":
                if (issue.values.length === 1)
                    return `Invalid input: expected ${stringifyPrimitive(issue.values[0])}`;
                return `Invalid option: expected one of ${joinValues(issue.values, "|")}`;
            case "too_big": {
                const adj = issue.exact ? "exactly " : issue.inclusive ? "<=" : "<";
                const sizing = getSizing(issue.origin);
                if (sizing)
                    return `Too big: expected ${issue.origin ?? "value"} to have ${adj}${issue.maximum.toString()} ${sizing.unit ?? "elements"}`;
                return `Too big: expected ${issue.origin ?? "value"} to be ${adj}${issue.maximum.toString()}`;
            }
            case "too_small": {
                const adj = issue.exact ? "exactly " : issue.inclusive ? ">=" : ">";
                const sizing = getSizing(issue.origin);
                if (sizing) {
                    return `Too small: expected ${issue.origin} to have ${adj}${issue.minimum.toString()} ${sizing.unit}`;
                }
                return `Too small: expected ${issue.origin} to be ${adj}${issue.minimum.toString()}`;
            }
            case "invalid_format": {
                const _issue = issue;
                if (_issue.format === "starts_with") {
                    return `Invalid string: must start with "${_issue.prefix}"`;
                }
                if (_issue.format === "ends_with")
                    return `Invalid string: must end with "${_issue.suffix}"`;
                if (_issue.format === "includes")
                    return `Invalid string: must include "${_issue.includes}"`;
                if (_issue.format === "regex")
                    return `Invalid string: must match pattern ${_issue.pattern}`;
                return `Invalid ${FormatDictionary[_issue.format] ?? issue.format}`;
            }
            case "not_multiple_of":
                return `Invalid number: must be a multiple of ${issue.divisor}`;
            case "unrecognized_keys":
                return `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${joinValues(issue.keys, ", ")}`;
            case "invalid_key":
                return `Invalid key in ${issue.origin}`;
            case "invalid_union":
                if (issue.options && Array.isArray(issue.options) && issue.options.length > 0) {
                    const opts = issue.options.map((o) => `'${o}'`).join(" | ");
                    return `Invalid discriminator value. Expected ${opts}`;
                }
                if (issue.inclusive === false) {
                    return "Invalid input: more than one option matched";
                }
                return "Invalid input";
            case "invalid_element":
                return `Invalid value in ${issue.origin}`;
            default:
                return `Invalid input`;
        }
    };
};
/* harmony default export */ function en() {
    return {
        localeError: error(),
    };
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/errors.js


/* Computing the message eagerly is expensive (pretty-printed JSON of all
 * issues), so defer it until first read. The accessor functions and
 * descriptors are shared across instances to keep error construction
 * cheap; the computed message is cached on the internals object. The
 * setter preserves plain assignment semantics for consumers that
 * overwrite `message`. */
function _getMessage() {
    const internals = this._zod;
    internals.message ?? (internals.message = JSON.stringify(internals.def, jsonStringifyReplacer, 2));
    return internals.message;
}
function _setMessage(value) {
    this._zod.message = value;
}
const _messageDesc = {
    get: _getMessage,
    set: _setMessage,
    enumerable: true,
    configurable: true,
};
const _issuesDesc = { value: undefined, enumerable: false };
/* Prototypes that already carry the lazy `toString`. Seeded with the
 * intrinsics so that `init` on a foreign object — it accepts any object —
 * can never install an accessor onto a prototype we do not own. */
const _installedToString = /* @__PURE__ */ new WeakSet([Object.prototype, Error.prototype]);
const initializer = (inst, def) => {
    inst.name = "$ZodError";
    // `_zod` is already non-enumerable: $constructor's init defined it with this same descriptor
    _issuesDesc.value = def;
    Object.defineProperty(inst, "issues", _issuesDesc);
    // Clear the shared slot; a retained `value` pins the last error's issues.
    _issuesDesc.value = undefined;
    Object.defineProperty(inst, "message", _messageDesc);
    /* `toString` lives as a non-enumerable lazy getter on the shared
     * prototype; on first access it caches a per-instance closure so
     * detached usage still works. */
    const proto = Object.getPrototypeOf(inst);
    if (!_installedToString.has(proto)) {
        _installedToString.add(proto);
        Object.defineProperty(proto, "toString", {
            configurable: true,
            enumerable: false,
            get() {
                const value = () => this.message;
                Object.defineProperty(this, "toString", { value, configurable: true, writable: true });
                return value;
            },
            set(value) {
                Object.defineProperty(this, "toString", { value, configurable: true, writable: true });
            },
        });
    }
};
const $ZodError = $constructor("$ZodError", initializer);
const $ZodRealError = $constructor("$ZodError", initializer, undefined, {
    Parent: Error,
});
/** Get-or-create `obj[key]` as an own data property. A path segment naming an inherited member
 * ("toString", "constructor") would otherwise read through to the prototype, and assigning
 * "__proto__" would hit the setter instead of creating a key. */
function node(obj, key, make) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) {
        if (key === "__proto__") {
            Object.defineProperty(obj, key, { value: make(), writable: true, enumerable: true, configurable: true });
        }
        else {
            obj[key] = make();
        }
    }
    return obj[key];
}
function flattenError(error, mapper = (issue) => issue.message) {
    const fieldErrors = {};
    const formErrors = [];
    for (const sub of error.issues) {
        if (sub.path.length > 0) {
            node(fieldErrors, sub.path[0], () => []).push(mapper(sub));
        }
        else {
            formErrors.push(mapper(sub));
        }
    }
    return { formErrors, fieldErrors };
}
function formatError(error, mapper = (issue) => issue.message) {
    const fieldErrors = { _errors: [] };
    const processError = (error, path = []) => {
        for (const issue of error.issues) {
            if (issue.code === "invalid_union" && issue.errors.length) {
                issue.errors.map((issues) => processError({ issues }, [...path, ...issue.path]));
            }
            else if (issue.code === "invalid_key") {
                processError({ issues: issue.issues }, [...path, ...issue.path]);
            }
            else if (issue.code === "invalid_element") {
                processError({ issues: issue.issues }, [...path, ...issue.path]);
            }
            else {
                const fullpath = [...path, ...issue.path];
                if (fullpath.length === 0) {
                    fieldErrors._errors.push(mapper(issue));
                }
                else {
                    let curr = fieldErrors;
                    let i = 0;
                    while (i < fullpath.length) {
                        const el = fullpath[i];
                        const terminal = i === fullpath.length - 1;
                        // `_errors` is reserved by this legacy format, so merge a matching path segment into the current node instead of treating its array as a child.
                        if (el === "_errors") {
                            if (terminal)
                                curr._errors.push(mapper(issue));
                            i++;
                            continue;
                        }
                        // A path element may collide with an inherited property name such as
                        // "__proto__" or "constructor". Truthiness checks read the prototype
                        // (so no node is created, then ._errors.push throws), and bracket
                        // assignment of "__proto__" hits the setter instead of creating an
                        // own key. Guard the read with hasOwnProperty and create the node
                        // with defineProperty so any path element becomes a real own key.
                        if (!Object.prototype.hasOwnProperty.call(curr, el)) {
                            Object.defineProperty(curr, el, {
                                value: { _errors: [] },
                                enumerable: true,
                                writable: true,
                                configurable: true,
                            });
                        }
                        const node = curr[el];
                        if (terminal) {
                            node._errors.push(mapper(issue));
                        }
                        curr = node;
                        i++;
                    }
                }
            }
        }
    };
    processError(error);
    return fieldErrors;
}
function treeifyError(error, mapper = (issue) => issue.message) {
    const result = { errors: [] };
    const processError = (error, path = []) => {
        var _a;
        for (const issue of error.issues) {
            if (issue.code === "invalid_union" && issue.errors.length) {
                // regular union error
                issue.errors.map((issues) => processError({ issues }, [...path, ...issue.path]));
            }
            else if (issue.code === "invalid_key") {
                processError({ issues: issue.issues }, [...path, ...issue.path]);
            }
            else if (issue.code === "invalid_element") {
                processError({ issues: issue.issues }, [...path, ...issue.path]);
            }
            else {
                const fullpath = [...path, ...issue.path];
                if (fullpath.length === 0) {
                    result.errors.push(mapper(issue));
                    continue;
                }
                let curr = result;
                let i = 0;
                while (i < fullpath.length) {
                    const el = fullpath[i];
                    const terminal = i === fullpath.length - 1;
                    if (typeof el === "string") {
                        curr.properties ?? (curr.properties = {});
                        // el may collide with an inherited property name ("__proto__",
                        // "constructor", ...); ??= reads the prototype so the node is never
                        // created and curr.errors.push throws. Guard with hasOwnProperty and
                        // create the node with defineProperty so "__proto__" becomes a real
                        // own key rather than invoking the prototype setter.
                        if (!Object.prototype.hasOwnProperty.call(curr.properties, el)) {
                            Object.defineProperty(curr.properties, el, {
                                value: { errors: [] },
                                enumerable: true,
                                writable: true,
                                configurable: true,
                            });
                        }
                        curr = curr.properties[el];
                    }
                    else {
                        curr.items ?? (curr.items = []);
                        (_a = curr.items)[el] ?? (_a[el] = { errors: [] });
                        curr = curr.items[el];
                    }
                    if (terminal) {
                        curr.errors.push(mapper(issue));
                    }
                    i++;
                }
            }
        }
    };
    processError(error);
    return result;
}
/** Format a ZodError as a human-readable string in the following form.
 *
 * From
 *
 * ```ts
 * ZodError {
 *   issues: [
 *     {
 *       expected: 'string',
 *       code: 'invalid_type',
 *       path: [ 'username' ],
 *       message: 'Invalid input: expected string'
 *     },
 *     {
 *       expected: 'number',
 *       code: 'invalid_type',
 *       path: [ 'favoriteNumbers', 1 ],
 *       message: 'Invalid input: expected number'
 *     }
 *   ];
 * }
 * ```
 *
 * to
 *
 * ```
 * username
 *   ✖ Expected number, received string at "username
 * favoriteNumbers[0]
 *   ✖ Invalid input: expected number
 * ```
 */
function toDotPath(_path) {
    const segs = [];
    const path = _path.map((seg) => (typeof seg === "object" ? seg.key : seg));
    for (const seg of path) {
        if (typeof seg === "number")
            segs.push(`[${seg}]`);
        else if (typeof seg === "symbol")
            segs.push(`[${JSON.stringify(String(seg))}]`);
        else if (/[^\w$]/.test(seg))
            segs.push(`[${JSON.stringify(seg)}]`);
        else {
            if (segs.length)
                segs.push(".");
            segs.push(seg);
        }
    }
    return segs.join("");
}
function prettifyError(error) {
    const lines = [];
    // sort by path length
    const issues = [...error.issues].sort((a, b) => (a.path ?? []).length - (b.path ?? []).length);
    // Process each issue
    for (const issue of issues) {
        lines.push(`✖ ${issue.message}`);
        if (issue.path?.length)
            lines.push(`  → at ${toDotPath(issue.path)}`);
    }
    // Convert Map to formatted string
    return lines.join("\n");
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/parse.js



// Always both keys, so the `_params` read site in `_parse` sees one object shape rather than two.
function finalizeParams(callee, params) {
    return { callee: params?.callee ?? callee, Err: params?.Err };
}
const _parse = (_Err) => {
    const fn = (schema, value, _ctx, _params) => {
        const ctx = _ctx ? { ..._ctx, async: false } : { async: false };
        const result = schema._zod.run({ value, issues: [] }, ctx);
        if (result instanceof Promise) {
            throw new $ZodAsyncError();
        }
        if (result.issues.length) {
            const e = new (_params?.Err ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
            captureStackTrace(e, _params?.callee ?? fn);
            throw e;
        }
        return result.value;
    };
    return fn;
};
const parse_parse = /* @__PURE__*/ _parse($ZodRealError);
const _parseAsync = (_Err) => {
    const fn = async (schema, value, _ctx, params) => {
        const ctx = _ctx ? { ..._ctx, async: true } : { async: true };
        let result = schema._zod.run({ value, issues: [] }, ctx);
        if (result instanceof Promise)
            result = await result;
        if (result.issues.length) {
            const e = new (params?.Err ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
            captureStackTrace(e, params?.callee ?? fn);
            throw e;
        }
        return result.value;
    };
    return fn;
};
const parse_parseAsync = /* @__PURE__*/ _parseAsync($ZodRealError);
const _safeParse = (_Err) => (schema, value, _ctx) => {
    const ctx = _ctx ? { ..._ctx, async: false } : { async: false };
    const result = schema._zod.run({ value, issues: [] }, ctx);
    if (result instanceof Promise) {
        throw new $ZodAsyncError();
    }
    return result.issues.length ? failure(_Err, result.issues, ctx) : { success: true, data: result.value };
};
const safeParse = /* @__PURE__*/ _safeParse($ZodRealError);
// the error is built on the first read of `error`: finalizing the issues and constructing the instance is most of a failing parse, and a caller that only branches on `success` never pays it. a getter in the literal keeps this small; the alternative, one shared accessor descriptor plus a hidden state slot, reads ~15% faster but costs ~75 B gzipped in every bundle
function failure(Err, issues, ctx) {
    let error;
    return {
        success: false,
        get error() {
            if (!error) {
                error = new Err(issues.map((iss) => finalizeIssue(iss, ctx, config())));
                // finalizeIssue drops `input`, so the built error holds nothing; keeping the raw issues past this point pins the parsed value for the life of the result
                issues = undefined;
                ctx = undefined;
            }
            return error;
        },
        set error(e) {
            error = e;
            // a replacement makes the getter's branch unreachable, so the captures have to go here too
            issues = undefined;
            ctx = undefined;
        },
    };
}
const _safeParseAsync = (_Err) => async (schema, value, _ctx) => {
    const ctx = _ctx ? { ..._ctx, async: true } : { async: true };
    let result = schema._zod.run({ value, issues: [] }, ctx);
    if (result instanceof Promise)
        result = await result;
    return result.issues.length ? failure(_Err, result.issues, ctx) : { success: true, data: result.value };
};
const safeParseAsync = /* @__PURE__*/ _safeParseAsync($ZodRealError);
// registry mirrors of the compiler's sentinels, so this module never imports the compiler
const COMPILE_INVALID = /* @__PURE__ */ Symbol.for("zod.compile.invalid");
const COMPILE_FALLBACK = /* @__PURE__ */ Symbol.for("zod.compile.fallback");
// Deliberately tiny, because v8 will not inline a body carrying the fallback's object literals and throw. Everything that is not the compiled happy path lives in validateFallback, and that split is worth ~35% on a compiled schema.
const validate = ((schema, value, _ctx) => {
    const validator = schema._zod.bag.validator;
    if (validator !== undefined) {
        if (validator(value) !== COMPILE_INVALID)
            return true;
        // a definite sentinel means the runtime would reject, so skip the re-parse; a ctx can still change the answer
        if (validator.definite === true && _ctx === undefined)
            return false;
    }
    return validateFallback(schema, value, _ctx);
});
function validateFallback(schema, value, _ctx) {
    const ctx = _ctx
        ? { ..._ctx, async: false, abortEarly: true }
        : { async: false, abortEarly: true };
    const fallbackRun = schema._zod.bag.fallbackRun;
    let result;
    if (fallbackRun) {
        // skip nested fast paths on the fallback, so user callbacks keep the at-most-twice bound
        ctx[COMPILE_FALLBACK] = true;
        result = fallbackRun({ value, issues: [] }, ctx);
    }
    else {
        result = schema._zod.run({ value, issues: [] }, ctx);
    }
    if (result instanceof Promise) {
        throw new $ZodAsyncError();
    }
    return result.issues.length === 0;
}
// no fast path: the compiler keeps async parses on the runtime, because a promise-returning callback that is not declared async compiles to a throw
const parse_validateAsync = async (schema, value, _ctx) => {
    const ctx = _ctx
        ? { ..._ctx, async: true, abortEarly: true }
        : { async: true, abortEarly: true };
    let result = schema._zod.run({ value, issues: [] }, ctx);
    if (result instanceof Promise)
        result = await result;
    return result.issues.length === 0;
};
const _encode = (_Err) => {
    const parse = _parse(_Err);
    const fn = (schema, value, _ctx, _params) => {
        const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
        return parse(schema, value, ctx, finalizeParams(fn, _params));
    };
    return fn;
};
const encode = /* @__PURE__*/ _encode($ZodRealError);
const _decode = (_Err) => {
    const parse = _parse(_Err);
    const fn = (schema, value, _ctx, _params) => {
        return parse(schema, value, _ctx, finalizeParams(fn, _params));
    };
    return fn;
};
const decode = /* @__PURE__*/ _decode($ZodRealError);
const _encodeAsync = (_Err) => {
    const parseAsync = _parseAsync(_Err);
    const fn = async (schema, value, _ctx, _params) => {
        const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
        return (await parseAsync(schema, value, ctx, finalizeParams(fn, _params)));
    };
    return fn;
};
const encodeAsync = /* @__PURE__*/ _encodeAsync($ZodRealError);
const _decodeAsync = (_Err) => {
    const parseAsync = _parseAsync(_Err);
    const fn = async (schema, value, _ctx, _params) => {
        return await parseAsync(schema, value, _ctx, finalizeParams(fn, _params));
    };
    return fn;
};
const decodeAsync = /* @__PURE__*/ _decodeAsync($ZodRealError);
const _safeEncode = (_Err) => (schema, value, _ctx) => {
    const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
    return _safeParse(_Err)(schema, value, ctx);
};
const safeEncode = /* @__PURE__*/ _safeEncode($ZodRealError);
const _safeDecode = (_Err) => (schema, value, _ctx) => {
    return _safeParse(_Err)(schema, value, _ctx);
};
const safeDecode = /* @__PURE__*/ _safeDecode($ZodRealError);
const _safeEncodeAsync = (_Err) => async (schema, value, _ctx) => {
    const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
    return _safeParseAsync(_Err)(schema, value, ctx);
};
const safeEncodeAsync = /* @__PURE__*/ _safeEncodeAsync($ZodRealError);
const _safeDecodeAsync = (_Err) => async (schema, value, _ctx) => {
    return _safeParseAsync(_Err)(schema, value, _ctx);
};
const safeDecodeAsync = /* @__PURE__*/ _safeDecodeAsync($ZodRealError);

;// CONCATENATED MODULE: ./node_modules/zod/v4/classic/errors.js



/* Prototypes that already carry the lazy helper methods. Seeded with the
 * intrinsics so that `init` on a foreign object — it accepts any object —
 * can never install an accessor onto a prototype we do not own. */
const _installedErrorProtos = /* @__PURE__ */ new WeakSet([Object.prototype, Error.prototype]);
/* Helper methods live as non-enumerable lazy getters on the shared
 * prototype instead of own properties on every instance. On first
 * access the getter allocates the per-instance closure and caches it
 * as a non-enumerable own property, so detached usage still works and
 * the allocation only happens for methods actually touched. */
function _lazyMethod(proto, key, make) {
    Object.defineProperty(proto, key, {
        configurable: true,
        enumerable: false,
        get() {
            const value = make(this);
            Object.defineProperty(this, key, { value, configurable: true, writable: true });
            return value;
        },
        set(value) {
            Object.defineProperty(this, key, { value, configurable: true, writable: true });
        },
    });
}
const errors_initializer = (inst, issues) => {
    $ZodError.init(inst, issues);
    inst.name = "ZodError";
    const proto = Object.getPrototypeOf(inst);
    if (_installedErrorProtos.has(proto))
        return;
    _installedErrorProtos.add(proto);
    _lazyMethod(proto, "format", (self) => (mapper) => formatError(self, mapper));
    _lazyMethod(proto, "flatten", (self) => (mapper) => flattenError(self, mapper));
    _lazyMethod(proto, "addIssue", (self) => (issue) => {
        self.issues.push(issue);
        self.message = JSON.stringify(self.issues, jsonStringifyReplacer, 2);
    });
    _lazyMethod(proto, "addIssues", (self) => (issues) => {
        self.issues.push(...issues);
        self.message = JSON.stringify(self.issues, jsonStringifyReplacer, 2);
    });
    Object.defineProperty(proto, "isEmpty", {
        configurable: true,
        enumerable: false,
        get() {
            return this.issues.length === 0;
        },
    });
};
const ZodError = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodError", errors_initializer)));
const ZodRealError = /*@__PURE__*/ $constructor("ZodError", errors_initializer, undefined, {
    Parent: Error,
});
// /** @deprecated Use `z.core.$ZodErrorMapCtx` instead. */
// export type ErrorMapCtx = core.$ZodErrorMapCtx;

;// CONCATENATED MODULE: ./node_modules/zod/v4/classic/parse.js


const classic_parse_parse = /* @__PURE__ */ _parse(ZodRealError);
const classic_parse_parseAsync = /* @__PURE__ */ _parseAsync(ZodRealError);
const parse_safeParse = /* @__PURE__ */ _safeParse(ZodRealError);
const parse_safeParseAsync = /* @__PURE__ */ _safeParseAsync(ZodRealError);

// Codec functions
const parse_encode = /* @__PURE__ */ _encode(ZodRealError);
const parse_decode = /* @__PURE__ */ _decode(ZodRealError);
const parse_encodeAsync = /* @__PURE__ */ _encodeAsync(ZodRealError);
const parse_decodeAsync = /* @__PURE__ */ _decodeAsync(ZodRealError);
const parse_safeEncode = /* @__PURE__ */ _safeEncode(ZodRealError);
const parse_safeDecode = /* @__PURE__ */ _safeDecode(ZodRealError);
const parse_safeEncodeAsync = /* @__PURE__ */ _safeEncodeAsync(ZodRealError);
const parse_safeDecodeAsync = /* @__PURE__ */ _safeDecodeAsync(ZodRealError);

;// CONCATENATED MODULE: ./node_modules/zod/v4/classic/schemas.js








// Register English as the default locale on first ZodType construction. Hooked into the `ZodType` `$constructor` (rather than a top-level `config(en())` in `external.ts`) so bundlers honoring `sideEffects: false` can't tree-shake it out — see #5953, #5725. An explicit `z.config(z.locales.xx())` call wins regardless of order, since this only sets the default when none is present.
function _ensureDefaultLocale() {
    if (!globalConfig.localeError)
        config(en());
}
// the default memoizer is read by the core container init, which runs before `ZodType.init`, so each container calls this first
function _ensureDefaultMemoizer() {
    if (!globalConfig.memoizer)
        config({ memoizer: memoizer() });
}
const ZodType = /*@__PURE__*/ $constructor("ZodType", (inst, def) => {
    _ensureDefaultLocale();
    $ZodType.init(inst, def);
    inst.def = def;
    inst.type = def.type;
    return inst;
}, {
    check(...chks) {
        const def = this.def;
        return this.clone(mergeDefs(def, {
            checks: [
                ...(def.checks ?? []),
                ...chks.map((ch) => typeof ch === "function" ? { _zod: { check: ch, def: { check: "custom" }, onattach: [] } } : ch),
            ],
        }), { parent: true });
    },
    with(...chks) {
        return this.check(...chks);
    },
    clone(def, params) {
        return clone(this, def, params);
    },
    brand() {
        return this;
    },
    register(reg, meta) {
        reg.add(this, meta);
        return this;
    },
    refine(check, params) {
        return this.check(refine(check, params));
    },
    superRefine(refinement, params) {
        return this.check(superRefine(refinement, params));
    },
    overwrite(fn) {
        return this.check(_overwrite(fn));
    },
    optional() {
        return optional(this);
    },
    exactOptional() {
        return exactOptional(this);
    },
    nullable() {
        return nullable(this);
    },
    nullish() {
        return optional(nullable(this));
    },
    nonoptional(params) {
        return nonoptional(this, params);
    },
    array() {
        return array(this);
    },
    or(arg) {
        return union([this, arg]);
    },
    and(arg) {
        return intersection(this, arg);
    },
    transform(tx) {
        return pipe(this, transform(tx));
    },
    default(d) {
        return schemas_default(this, d);
    },
    prefault(d) {
        return prefault(this, d);
    },
    catch(params) {
        return schemas_catch(this, params);
    },
    pipe(target) {
        return pipe(this, target);
    },
    readonly() {
        return readonly(this);
    },
    describe(description) {
        const cl = this.clone();
        globalRegistry.add(cl, { description });
        return cl;
    },
    meta(...args) {
        // overloaded: meta() returns the registered metadata, meta(data) returns a clone with `data` registered. The mapped type picks up the second overload, so we accept variadic any-args and return `any` to satisfy both at runtime.
        if (args.length === 0)
            return globalRegistry.get(this);
        const cl = this.clone();
        globalRegistry.add(cl, args[0]);
        return cl;
    },
    isOptional() {
        return this.safeParse(undefined).success;
    },
    isNullable() {
        return this.safeParse(null).success;
    },
    apply(fn, ...args) {
        return args.length === 0 ? fn(this) : fn(this, ...args);
    },
    // Overrides core's `~standard` to add `jsonSchema`. Must stay a prototype entry: redefining it per instance demotes instances to dictionary mode.
    get "~standard"() {
        return hide(this, "~standard", {
            ...standardProps(this),
            jsonSchema: {
                input: createStandardJSONSchemaMethod(this, "input"),
                output: createStandardJSONSchemaMethod(this, "output"),
            },
        });
    },
    set "~standard"(value) {
        own(this, "~standard", value);
    },
    parse: function _parse(data, params) {
        return classic_parse_parse(this, data, params, { callee: _parse });
    },
    parseAsync: async function _parseAsync(data, params) {
        return await classic_parse_parseAsync(this, data, params, { callee: _parseAsync });
    },
    safeParse(data, params) {
        return parse_safeParse(this, data, params);
    },
    async safeParseAsync(data, params) {
        return parse_safeParseAsync(this, data, params);
    },
    // `spa` is an alias: same function object as `safeParseAsync`, as before.
    get spa() {
        return this?.safeParseAsync;
    },
    set spa(value) {
        own(this, "spa", value);
    },
    validate(data, params) {
        return validate(this, data, params);
    },
    validateAsync(data, params) {
        return parse_validateAsync(this, data, params);
    },
    encode: function _encode(data, params) {
        return parse_encode(this, data, params, { callee: _encode });
    },
    decode: function _decode(data, params) {
        return parse_decode(this, data, params, { callee: _decode });
    },
    encodeAsync: async function _encodeAsync(data, params) {
        return await parse_encodeAsync(this, data, params, { callee: _encodeAsync });
    },
    decodeAsync: async function _decodeAsync(data, params) {
        return await parse_decodeAsync(this, data, params, { callee: _decodeAsync });
    },
    safeEncode(data, params) {
        return parse_safeEncode(this, data, params);
    },
    safeDecode(data, params) {
        return parse_safeDecode(this, data, params);
    },
    async safeEncodeAsync(data, params) {
        return parse_safeEncodeAsync(this, data, params);
    },
    async safeDecodeAsync(data, params) {
        return parse_safeDecodeAsync(this, data, params);
    },
    toJSONSchema(params) {
        return createToJSONSchemaMethod(this, {})(params);
    },
    // Reads through to the registry on every access, so it must not cache.
    get description() {
        return globalRegistry.get(this)?.description;
    },
    // No setter: `schema._def = x` throws, as it did when `_def` was a non-writable own property.
    get _def() {
        return this._zod.def;
    },
});
/** @internal */
const _ZodString = /*@__PURE__*/ $constructor("_ZodString", (inst, def) => {
    $ZodString.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => stringProcessor(inst, ctx, json, params);
}, 
/*@__PURE__*/ derived({
    format: (inst) => aggregateChecks(inst).format ?? null,
    minLength: (inst) => aggregateChecks(inst).minimum ?? null,
    maxLength: (inst) => aggregateChecks(inst).maximum ?? null,
}, {
    regex(...args) {
        return this.check(_regex(...args));
    },
    includes(...args) {
        return this.check(_includes(...args));
    },
    startsWith(...args) {
        return this.check(_startsWith(...args));
    },
    endsWith(...args) {
        return this.check(_endsWith(...args));
    },
    min(...args) {
        return this.check(_minLength(...args));
    },
    max(...args) {
        return this.check(_maxLength(...args));
    },
    length(...args) {
        return this.check(_length(...args));
    },
    nonempty(...args) {
        return this.check(_minLength(1, ...args));
    },
    lowercase(params) {
        return this.check(_lowercase(params));
    },
    uppercase(params) {
        return this.check(_uppercase(params));
    },
    trim() {
        return this.check(_trim());
    },
    normalize(...args) {
        return this.check(_normalize(...args));
    },
    toLowerCase() {
        return this.check(_toLowerCase());
    },
    toUpperCase() {
        return this.check(_toUpperCase());
    },
    slugify() {
        return this.check(_slugify());
    },
}));
const ZodString = /*@__PURE__*/ $constructor("ZodString", (inst, def) => {
    $ZodString.init(inst, def);
    _ZodString.init(inst, def);
}, {
    email(params) {
        return this.check(_email(ZodEmail, params));
    },
    url(params) {
        return this.check(_url(ZodURL, params));
    },
    jwt(params) {
        return this.check(_jwt(ZodJWT, params));
    },
    emoji(params) {
        return this.check(api_emoji(ZodEmoji, params));
    },
    guid(params) {
        return this.check(_guid(ZodGUID, params));
    },
    uuid(params) {
        return this.check(_uuid(ZodUUID, params));
    },
    uuidv4(params) {
        return this.check(_uuidv4(ZodUUID, params));
    },
    uuidv6(params) {
        return this.check(_uuidv6(ZodUUID, params));
    },
    uuidv7(params) {
        return this.check(_uuidv7(ZodUUID, params));
    },
    nanoid(params) {
        return this.check(_nanoid(ZodNanoID, params));
    },
    cuid(params) {
        return this.check(_cuid(ZodCUID, params));
    },
    cuid2(params) {
        return this.check(_cuid2(ZodCUID2, params));
    },
    ulid(params) {
        return this.check(_ulid(ZodULID, params));
    },
    base64(params) {
        return this.check(_base64(ZodBase64, params));
    },
    base64url(params) {
        return this.check(_base64url(ZodBase64URL, params));
    },
    xid(params) {
        return this.check(_xid(ZodXID, params));
    },
    ksuid(params) {
        return this.check(_ksuid(ZodKSUID, params));
    },
    ipv4(params) {
        return this.check(_ipv4(ZodIPv4, params));
    },
    ipv6(params) {
        return this.check(_ipv6(ZodIPv6, params));
    },
    cidrv4(params) {
        return this.check(_cidrv4(ZodCIDRv4, params));
    },
    cidrv6(params) {
        return this.check(_cidrv6(ZodCIDRv6, params));
    },
    e164(params) {
        return this.check(_e164(ZodE164, params));
    },
    datetime(params) {
        return this.check(_isoDateTime(ZodISODateTime, params));
    },
    date(params) {
        return this.check(_isoDate(ZodISODate, params));
    },
    time(params) {
        return this.check(_isoTime(ZodISOTime, params));
    },
    duration(params) {
        return this.check(_isoDuration(ZodISODuration, params));
    },
});
function schemas_string(params) {
    return _string(ZodString, params);
}
const ZodStringFormat = /*@__PURE__*/ $constructor("ZodStringFormat", (inst, def) => {
    $ZodStringFormat.init(inst, def);
    _ZodString.init(inst, def);
});
const ZodISODateTime = /*@__PURE__*/ $constructor("ZodISODateTime", (inst, def) => {
    $ZodISODateTime.init(inst, def);
    ZodStringFormat.init(inst, def);
});
const ZodISODate = /*@__PURE__*/ $constructor("ZodISODate", (inst, def) => {
    $ZodISODate.init(inst, def);
    ZodStringFormat.init(inst, def);
});
const ZodISOTime = /*@__PURE__*/ $constructor("ZodISOTime", (inst, def) => {
    $ZodISOTime.init(inst, def);
    ZodStringFormat.init(inst, def);
});
const ZodISODuration = /*@__PURE__*/ $constructor("ZodISODuration", (inst, def) => {
    $ZodISODuration.init(inst, def);
    ZodStringFormat.init(inst, def);
});
const ZodEmail = /*@__PURE__*/ $constructor("ZodEmail", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodEmail.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_email(params) {
    return core._email(ZodEmail, params);
}
const ZodGUID = /*@__PURE__*/ $constructor("ZodGUID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodGUID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_guid(params) {
    return core._guid(ZodGUID, params);
}
const ZodUUID = /*@__PURE__*/ $constructor("ZodUUID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodUUID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_uuid(params) {
    return core._uuid(ZodUUID, params);
}
function uuidv4(params) {
    return core._uuidv4(ZodUUID, params);
}
// ZodUUIDv6
function uuidv6(params) {
    return core._uuidv6(ZodUUID, params);
}
// ZodUUIDv7
function uuidv7(params) {
    return core._uuidv7(ZodUUID, params);
}
const ZodURL = /*@__PURE__*/ $constructor("ZodURL", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodURL.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function url(params) {
    return core._url(ZodURL, params);
}
function httpUrl(params) {
    return core._url(ZodURL, {
        protocol: regexes.httpProtocol,
        hostname: regexes.domain,
        ...util.normalizeParams(params),
    });
}
const ZodEmoji = /*@__PURE__*/ $constructor("ZodEmoji", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodEmoji.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_emoji(params) {
    return core._emoji(ZodEmoji, params);
}
const ZodNanoID = /*@__PURE__*/ $constructor("ZodNanoID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodNanoID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_nanoid(params) {
    return core._nanoid(ZodNanoID, params);
}
/**
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link ZodCUID2} instead.
 * See https://github.com/paralleldrive/cuid.
 */
const ZodCUID = /*@__PURE__*/ $constructor("ZodCUID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodCUID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
/**
 * Validates a CUID v1 string.
 *
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link cuid2 | `z.cuid2()`} instead.
 * See https://github.com/paralleldrive/cuid.
 */
function schemas_cuid(params) {
    return core._cuid(ZodCUID, params);
}
const ZodCUID2 = /*@__PURE__*/ $constructor("ZodCUID2", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodCUID2.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_cuid2(params) {
    return core._cuid2(ZodCUID2, params);
}
const ZodULID = /*@__PURE__*/ $constructor("ZodULID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodULID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_ulid(params) {
    return core._ulid(ZodULID, params);
}
const ZodXID = /*@__PURE__*/ $constructor("ZodXID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodXID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_xid(params) {
    return core._xid(ZodXID, params);
}
const ZodKSUID = /*@__PURE__*/ $constructor("ZodKSUID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodKSUID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_ksuid(params) {
    return core._ksuid(ZodKSUID, params);
}
const ZodIPv4 = /*@__PURE__*/ $constructor("ZodIPv4", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodIPv4.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_ipv4(params) {
    return core._ipv4(ZodIPv4, params);
}
const ZodMAC = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodMAC", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    core.$ZodMAC.init(inst, def);
    ZodStringFormat.init(inst, def);
})));
function schemas_mac(params) {
    return core._mac(ZodMAC, params);
}
const ZodIPv6 = /*@__PURE__*/ $constructor("ZodIPv6", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodIPv6.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_ipv6(params) {
    return core._ipv6(ZodIPv6, params);
}
const ZodCIDRv4 = /*@__PURE__*/ $constructor("ZodCIDRv4", (inst, def) => {
    $ZodCIDRv4.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_cidrv4(params) {
    return core._cidrv4(ZodCIDRv4, params);
}
const ZodCIDRv6 = /*@__PURE__*/ $constructor("ZodCIDRv6", (inst, def) => {
    $ZodCIDRv6.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_cidrv6(params) {
    return core._cidrv6(ZodCIDRv6, params);
}
const ZodBase64 = /*@__PURE__*/ $constructor("ZodBase64", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodBase64.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_base64(params) {
    return core._base64(ZodBase64, params);
}
const ZodBase64URL = /*@__PURE__*/ $constructor("ZodBase64URL", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodBase64URL.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_base64url(params) {
    return core._base64url(ZodBase64URL, params);
}
const ZodE164 = /*@__PURE__*/ $constructor("ZodE164", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodE164.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_e164(params) {
    return core._e164(ZodE164, params);
}
const ZodCreditCard = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodCreditCard", (inst, def) => {
    core.$ZodCreditCard.init(inst, def);
    ZodStringFormat.init(inst, def);
})));
function schemas_creditCard(params) {
    return core._creditCard(ZodCreditCard, params);
}
const ZodIBAN = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodIBAN", (inst, def) => {
    core.$ZodIBAN.init(inst, def);
    ZodStringFormat.init(inst, def);
})));
function schemas_iban(params) {
    return core._iban(ZodIBAN, params);
}
const ZodJWT = /*@__PURE__*/ $constructor("ZodJWT", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodJWT.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function jwt(params) {
    return core._jwt(ZodJWT, params);
}
const ZodCustomStringFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodCustomStringFormat", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    core.$ZodCustomStringFormat.init(inst, def);
    ZodStringFormat.init(inst, def);
})));
function stringFormat(format, fnOrRegex, _params = {}) {
    return core._stringFormat(ZodCustomStringFormat, format, fnOrRegex, _params);
}
function schemas_hostname(_params) {
    return core._stringFormat(ZodCustomStringFormat, "hostname", regexes.hostname, _params);
}
function schemas_hex(_params) {
    return core._stringFormat(ZodCustomStringFormat, "hex", regexes.hex, _params);
}
function schemas_currencyCode(_params) {
    return core._stringFormat(ZodCustomStringFormat, "currency_code", regexes.currencyCode, _params);
}
function hash(alg, params) {
    const enc = params?.enc ?? "hex";
    const format = `${alg}_${enc}`;
    const regex = core.regexes[format];
    if (!regex)
        throw new Error(`Unrecognized hash format: ${format}`);
    return core._stringFormat(ZodCustomStringFormat, format, regex, params);
}
const ZodNumber = /*@__PURE__*/ $constructor("ZodNumber", (inst, def) => {
    $ZodNumber.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => numberProcessor(inst, ctx, json, params);
    inst.isFinite = true;
}, 
/*@__PURE__*/ derived({
    minValue: (inst) => {
        const { minimum, exclusiveMinimum } = aggregateChecks(inst);
        return Math.max(minimum ?? Number.NEGATIVE_INFINITY, exclusiveMinimum ?? Number.NEGATIVE_INFINITY);
    },
    maxValue: (inst) => {
        const { maximum, exclusiveMaximum } = aggregateChecks(inst);
        return Math.min(maximum ?? Number.POSITIVE_INFINITY, exclusiveMaximum ?? Number.POSITIVE_INFINITY);
    },
    isInt: (inst) => {
        const { isInt, multipleOf } = aggregateChecks(inst);
        return !!isInt || !!multipleOf?.some(Number.isSafeInteger);
    },
    format: (inst) => aggregateChecks(inst).format ?? null,
}, {
    gt(value, params) {
        return this.check(_gt(value, params));
    },
    gte(value, params) {
        return this.check(_gte(value, params));
    },
    min(value, params) {
        return this.check(_gte(value, params));
    },
    lt(value, params) {
        return this.check(_lt(value, params));
    },
    lte(value, params) {
        return this.check(_lte(value, params));
    },
    max(value, params) {
        return this.check(_lte(value, params));
    },
    int(params) {
        return this.check(schemas_int(params));
    },
    safe(params) {
        return this.check(schemas_int(params));
    },
    positive(params) {
        return this.check(_gt(0, params));
    },
    nonnegative(params) {
        return this.check(_gte(0, params));
    },
    negative(params) {
        return this.check(_lt(0, params));
    },
    nonpositive(params) {
        return this.check(_lte(0, params));
    },
    multipleOf(value, params) {
        return this.check(_multipleOf(value, params));
    },
    step(value, params) {
        return this.check(_multipleOf(value, params));
    },
    finite() {
        return this;
    },
}));
function schemas_number(params) {
    return _number(ZodNumber, params);
}
const ZodNumberFormat = /*@__PURE__*/ $constructor("ZodNumberFormat", (inst, def) => {
    $ZodNumberFormat.init(inst, def);
    ZodNumber.init(inst, def);
});
function schemas_int(params) {
    return _int(ZodNumberFormat, params);
}
function float32(params) {
    return core._float32(ZodNumberFormat, params);
}
function float64(params) {
    return core._float64(ZodNumberFormat, params);
}
function int32(params) {
    return core._int32(ZodNumberFormat, params);
}
function uint32(params) {
    return core._uint32(ZodNumberFormat, params);
}
const ZodBoolean = /*@__PURE__*/ $constructor("ZodBoolean", (inst, def) => {
    $ZodBoolean.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => booleanProcessor(inst, ctx, json, params);
});
function schemas_boolean(params) {
    return _boolean(ZodBoolean, params);
}
const ZodBigInt = /*@__PURE__*/ $constructor("ZodBigInt", (inst, def) => {
    $ZodBigInt.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => bigintProcessor(inst, ctx, json, params);
}, 
/*@__PURE__*/ derived({
    minValue: (inst) => aggregateChecks(inst).minimum ?? null,
    maxValue: (inst) => aggregateChecks(inst).maximum ?? null,
    format: (inst) => aggregateChecks(inst).format ?? null,
}, {
    gte(value, params) {
        return this.check(_gte(value, params));
    },
    min(value, params) {
        return this.check(_gte(value, params));
    },
    gt(value, params) {
        return this.check(_gt(value, params));
    },
    lt(value, params) {
        return this.check(_lt(value, params));
    },
    lte(value, params) {
        return this.check(_lte(value, params));
    },
    max(value, params) {
        return this.check(_lte(value, params));
    },
    positive(params) {
        return this.check(_gt(BigInt(0), params));
    },
    negative(params) {
        return this.check(_lt(BigInt(0), params));
    },
    nonpositive(params) {
        return this.check(_lte(BigInt(0), params));
    },
    nonnegative(params) {
        return this.check(_gte(BigInt(0), params));
    },
    multipleOf(value, params) {
        return this.check(_multipleOf(value, params));
    },
}));
function schemas_bigint(params) {
    return core._bigint(ZodBigInt, params);
}
const ZodBigIntFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodBigIntFormat", (inst, def) => {
    core.$ZodBigIntFormat.init(inst, def);
    ZodBigInt.init(inst, def);
})));
function int64(params) {
    return core._int64(ZodBigIntFormat, params);
}
function uint64(params) {
    return core._uint64(ZodBigIntFormat, params);
}
const ZodSymbol = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodSymbol", (inst, def) => {
    core.$ZodSymbol.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.symbolProcessor(inst, ctx, json, params);
})));
function symbol(params) {
    return core._symbol(ZodSymbol, params);
}
const ZodUndefined = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodUndefined", (inst, def) => {
    core.$ZodUndefined.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.undefinedProcessor(inst, ctx, json, params);
})));
function schemas_undefined(params) {
    return core._undefined(ZodUndefined, params);
}

const ZodNull = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodNull", (inst, def) => {
    core.$ZodNull.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.nullProcessor(inst, ctx, json, params);
})));
function schemas_null(params) {
    return core._null(ZodNull, params);
}

const ZodAny = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodAny", (inst, def) => {
    core.$ZodAny.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.anyProcessor(inst, ctx, json, params);
})));
function any() {
    return core._any(ZodAny);
}
const ZodUnknown = /*@__PURE__*/ $constructor("ZodUnknown", (inst, def) => {
    $ZodUnknown.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => unknownProcessor(inst, ctx, json, params);
});
function unknown() {
    return _unknown(ZodUnknown);
}
const ZodNever = /*@__PURE__*/ $constructor("ZodNever", (inst, def) => {
    $ZodNever.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => neverProcessor(inst, ctx, json, params);
});
function never(params) {
    return _never(ZodNever, params);
}
const ZodVoid = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodVoid", (inst, def) => {
    core.$ZodVoid.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.voidProcessor(inst, ctx, json, params);
})));
function schemas_void(params) {
    return core._void(ZodVoid, params);
}

const ZodDate = /*@__PURE__*/ $constructor("ZodDate", (inst, def) => {
    $ZodDate.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => dateProcessor(inst, ctx, json, params);
    inst.min = (value, params) => inst.check(_gte(value, params));
    inst.max = (value, params) => inst.check(_lte(value, params));
}, 
/*@__PURE__*/ derived({
    minDate: (inst) => {
        const { minimum } = aggregateChecks(inst);
        return minimum ? new Date(minimum) : null;
    },
    maxDate: (inst) => {
        const { maximum } = aggregateChecks(inst);
        return maximum ? new Date(maximum) : null;
    },
}, {}));
function schemas_date(params) {
    return core._date(ZodDate, params);
}
const ZodArray = /*@__PURE__*/ $constructor("ZodArray", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodArray.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => arrayProcessor(inst, ctx, json, params);
    inst.element = def.element;
}, {
    min(n, params) {
        return this.check(_minLength(n, params));
    },
    nonempty(params) {
        return this.check(_minLength(1, params));
    },
    max(n, params) {
        return this.check(_maxLength(n, params));
    },
    length(n, params) {
        return this.check(_length(n, params));
    },
    unwrap() {
        return this.element;
    },
});
function array(element, params) {
    return _array(ZodArray, element, params);
}
// .keyof
function keyof(schema) {
    const shape = schema._zod.def.shape;
    return schemas_enum(Object.keys(shape));
}
const ZodObject = /*@__PURE__*/ $constructor("ZodObject", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodObjectJIT.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => objectProcessor(inst, ctx, json, params);
    installLazyProp(inst, "shape", (self) => self._zod.def.shape, false);
}, {
    keyof() {
        return schemas_enum(Object.keys(this._zod.def.shape));
    },
    catchall(catchall) {
        // `mergeDefs` rather than a spread: spreading reads `shape`, and resolving it can mint a whole fresh subtree
        return this.clone(mergeDefs(this._zod.def, { catchall: catchall }));
    },
    passthrough() {
        return this.clone(mergeDefs(this._zod.def, { catchall: unknown() }));
    },
    loose() {
        return this.clone(mergeDefs(this._zod.def, { catchall: unknown() }));
    },
    strict() {
        return this.clone(mergeDefs(this._zod.def, { catchall: never() }));
    },
    strip() {
        return this.clone(mergeDefs(this._zod.def, { catchall: undefined }));
    },
    extend(incoming) {
        return extend(this, incoming);
    },
    safeExtend(incoming) {
        return safeExtend(this, incoming);
    },
    merge(other) {
        return merge(this, other);
    },
    pick(mask) {
        return pick(this, mask);
    },
    omit(mask) {
        return omit(this, mask);
    },
    partial(...args) {
        return partial(ZodOptional, this, args[0]);
    },
    exactPartial(...args) {
        return partial(ZodExactOptional, this, args[0], "exactPartial");
    },
    required(...args) {
        return required(ZodNonOptional, this, args[0]);
    },
});
function object(shape, params) {
    const def = {
        type: "object",
        shape: shape ?? {},
        ...normalizeParams(params),
    };
    return new ZodObject(def);
}
// strictObject
function strictObject(shape, params) {
    return new ZodObject({
        type: "object",
        shape,
        catchall: never(),
        ...util.normalizeParams(params),
    });
}
// looseObject
function looseObject(shape, params) {
    return new ZodObject({
        type: "object",
        shape,
        catchall: unknown(),
        ...util.normalizeParams(params),
    });
}
const ZodUnion = /*@__PURE__*/ $constructor("ZodUnion", (inst, def) => {
    $ZodUnion.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => unionProcessor(inst, ctx, json, params);
    inst.options = def.options;
});
function union(options, params) {
    return new ZodUnion({
        type: "union",
        options: options,
        ...normalizeParams(params),
    });
}
const ZodXor = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodXor", (inst, def) => {
    ZodUnion.init(inst, def);
    core.$ZodXor.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.unionProcessor(inst, ctx, json, params);
    inst.options = def.options;
})));
/** Creates an exclusive union (XOR) where exactly one option must match.
 * Unlike regular unions that succeed when any option matches, xor fails if
 * zero or more than one option matches the input. */
function xor(options, params) {
    return new ZodXor({
        type: "union",
        options: options,
        inclusive: false,
        ...util.normalizeParams(params),
    });
}
const ZodDiscriminatedUnion = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodDiscriminatedUnion", (inst, def) => {
    ZodUnion.init(inst, def);
    core.$ZodDiscriminatedUnion.init(inst, def);
})));
function discriminatedUnion(discriminator, options, params) {
    // const [options, params] = args;
    return new ZodDiscriminatedUnion({
        type: "union",
        options: options,
        discriminator,
        ...util.normalizeParams(params),
    });
}
const ZodIntersection = /*@__PURE__*/ $constructor("ZodIntersection", (inst, def) => {
    $ZodIntersection.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => intersectionProcessor(inst, ctx, json, params);
});
function intersection(left, right) {
    return new ZodIntersection({
        type: "intersection",
        left: left,
        right: right,
    });
}
const ZodTuple = /*@__PURE__*/ $constructor("ZodTuple", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodTuple.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => tupleProcessor(inst, ctx, json, params);
}, {
    rest(rest) {
        return this.clone({
            ...this._zod.def,
            rest: rest,
        });
    },
    partial() {
        const def = this._zod.def;
        // a refinement was authored against the full arity; partialing would run it on a shorter array
        if (def.checks?.length)
            throw new Error(".partial() cannot be used on tuple schemas containing refinements");
        return this.clone({
            ...def,
            items: def.items.map((item) => new ZodOptional({ type: "optional", innerType: item })),
        });
    },
});
function tuple(items, _paramsOrRest, _params) {
    const hasRest = _paramsOrRest instanceof core.$ZodType;
    const params = hasRest ? _params : _paramsOrRest;
    const rest = hasRest ? _paramsOrRest : null;
    return new ZodTuple({
        type: "tuple",
        items: items,
        rest,
        ...util.normalizeParams(params),
    });
}
const ZodRecord = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodRecord", (inst, def) => {
    _ensureDefaultMemoizer();
    core.$ZodRecord.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.recordProcessor(inst, ctx, json, params);
    inst.keyType = def.keyType;
    inst.valueType = def.valueType;
})));
function record(keyType, valueType, params) {
    // v3-compat: z.record(valueType, params?) — defaults keyType to z.string()
    if (!valueType || !valueType._zod) {
        return new ZodRecord({
            type: "record",
            keyType: schemas_string(),
            valueType: keyType,
            ...util.normalizeParams(valueType),
        });
    }
    return new ZodRecord({
        type: "record",
        keyType,
        valueType: valueType,
        ...util.normalizeParams(params),
    });
}
// type alksjf = core.output<core.$ZodRecordKey>;
function partialRecord(keyType, valueType, params) {
    return new ZodRecord({
        type: "record",
        keyType,
        valueType: valueType,
        ...util.normalizeParams(params),
        partial: true,
    });
}
function looseRecord(keyType, valueType, params) {
    return new ZodRecord({
        type: "record",
        keyType,
        valueType: valueType,
        mode: "loose",
        ...util.normalizeParams(params),
    });
}
const ZodMap = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodMap", (inst, def) => {
    _ensureDefaultMemoizer();
    core.$ZodMap.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.mapProcessor(inst, ctx, json, params);
    inst.keyType = def.keyType;
    inst.valueType = def.valueType;
    inst.min = (...args) => inst.check(core._minSize(...args));
    inst.nonempty = (params) => inst.check(core._minSize(1, params));
    inst.max = (...args) => inst.check(core._maxSize(...args));
    inst.size = (...args) => inst.check(core._size(...args));
})));
function map(keyType, valueType, params) {
    return new ZodMap({
        type: "map",
        keyType: keyType,
        valueType: valueType,
        ...util.normalizeParams(params),
    });
}
const ZodSet = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodSet", (inst, def) => {
    _ensureDefaultMemoizer();
    core.$ZodSet.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.setProcessor(inst, ctx, json, params);
    inst.min = (...args) => inst.check(core._minSize(...args));
    inst.nonempty = (params) => inst.check(core._minSize(1, params));
    inst.max = (...args) => inst.check(core._maxSize(...args));
    inst.size = (...args) => inst.check(core._size(...args));
})));
function set(valueType, params) {
    return new ZodSet({
        type: "set",
        valueType: valueType,
        ...util.normalizeParams(params),
    });
}
const ZodEnum = /*@__PURE__*/ $constructor("ZodEnum", (inst, def) => {
    $ZodEnum.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => enumProcessor(inst, ctx, json, params);
    inst.enum = def.entries;
    // reuse the parsed value set so a numeric TS enum's reverse-mapping keys stay out
    inst.options = [...inst._zod.values];
    const keys = new Set(Object.keys(def.entries));
    inst.extract = (values, params) => {
        const newEntries = {};
        for (const value of values) {
            if (keys.has(value)) {
                newEntries[value] = def.entries[value];
            }
            else
                throw new Error(`Key ${value} not found in enum`);
        }
        return new ZodEnum({
            ...def,
            checks: [],
            ...normalizeParams(params),
            entries: newEntries,
        });
    };
    inst.exclude = (values, params) => {
        const newEntries = { ...def.entries };
        for (const value of values) {
            if (keys.has(value)) {
                delete newEntries[value];
            }
            else
                throw new Error(`Key ${value} not found in enum`);
        }
        return new ZodEnum({
            ...def,
            checks: [],
            ...normalizeParams(params),
            entries: newEntries,
        });
    };
});
function schemas_enum(values, params) {
    const entries = Array.isArray(values) ? Object.fromEntries(values.map((v) => [v, v])) : values;
    return new ZodEnum({
        type: "enum",
        entries,
        ...normalizeParams(params),
    });
}

/** @deprecated This API has been merged into `z.enum()`. Use `z.enum()` instead.
 *
 * ```ts
 * enum Colors { red, green, blue }
 * z.enum(Colors);
 * ```
 */
function nativeEnum(entries, params) {
    return new ZodEnum({
        type: "enum",
        entries,
        ...util.normalizeParams(params),
    });
}
const ZodLiteral = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodLiteral", (inst, def) => {
    core.$ZodLiteral.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.literalProcessor(inst, ctx, json, params);
    inst.values = new Set(def.values);
    Object.defineProperty(inst, "value", {
        get() {
            if (def.values.length > 1) {
                throw new Error("This schema contains multiple valid literal values. Use `.values` instead.");
            }
            return def.values[0];
        },
    });
})));
function literal(value, params) {
    return new ZodLiteral({
        type: "literal",
        values: Array.isArray(value) ? value : [value],
        ...util.normalizeParams(params),
    });
}
const ZodFile = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodFile", (inst, def) => {
    core.$ZodFile.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.fileProcessor(inst, ctx, json, params);
    inst.min = (size, params) => inst.check(core._minSize(size, params));
    inst.max = (size, params) => inst.check(core._maxSize(size, params));
    inst.mime = (types, params) => inst.check(core._mime(Array.isArray(types) ? types : [types], params));
})));
function file(params) {
    return core._file(ZodFile, params);
}
const ZodTransform = /*@__PURE__*/ $constructor("ZodTransform", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodTransform.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => transformProcessor(inst, ctx, json, params);
    inst._zod.parse = (payload, _ctx) => {
        if (_ctx.direction === "backward") {
            throw new $ZodEncodeError(inst.constructor.name);
        }
        payload.addIssue = (issue) => {
            if (typeof issue === "string") {
                payload.issues.push(util_issue(issue, payload.value, def));
            }
            else {
                // for Zod 3 backwards compatibility
                const _issue = issue;
                if (_issue.fatal)
                    _issue.continue = false;
                _issue.code ?? (_issue.code = "custom");
                if (!("input" in _issue))
                    _issue.input = payload.value;
                _issue.inst ?? (_issue.inst = inst);
                // _issue.continue ??= true;
                payload.issues.push(util_issue(_issue));
            }
        };
        const output = def.transform(payload.value, payload);
        if (output instanceof Promise) {
            return output.then((output) => {
                payload.value = output;
                return payload;
            });
        }
        payload.value = output;
        return payload;
    };
});
function transform(fn) {
    return new ZodTransform({
        type: "transform",
        transform: fn,
    });
}
const ZodOptional = /*@__PURE__*/ $constructor("ZodOptional", (inst, def) => {
    $ZodOptional.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => optionalProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function optional(innerType) {
    return new ZodOptional({
        type: "optional",
        innerType: innerType,
    });
}
const ZodExactOptional = /*@__PURE__*/ $constructor("ZodExactOptional", (inst, def) => {
    $ZodExactOptional.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => optionalProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function exactOptional(innerType) {
    return new ZodExactOptional({
        type: "optional",
        innerType: innerType,
    });
}
const ZodNullable = /*@__PURE__*/ $constructor("ZodNullable", (inst, def) => {
    $ZodNullable.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => nullableProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function nullable(innerType) {
    return new ZodNullable({
        type: "nullable",
        innerType: innerType,
    });
}
// nullish
function schemas_nullish(innerType) {
    return optional(nullable(innerType));
}
const ZodDefault = /*@__PURE__*/ $constructor("ZodDefault", (inst, def) => {
    $ZodDefault.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => defaultProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
    inst.removeDefault = inst.unwrap;
});
function schemas_default(innerType, defaultValue) {
    return new ZodDefault({
        type: "default",
        innerType: innerType,
        get defaultValue() {
            return typeof defaultValue === "function" ? defaultValue() : shallowClone(defaultValue);
        },
    });
}
const ZodPrefault = /*@__PURE__*/ $constructor("ZodPrefault", (inst, def) => {
    $ZodPrefault.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => prefaultProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function prefault(innerType, defaultValue) {
    return new ZodPrefault({
        type: "prefault",
        innerType: innerType,
        get defaultValue() {
            return typeof defaultValue === "function" ? defaultValue() : shallowClone(defaultValue);
        },
    });
}
const ZodNonOptional = /*@__PURE__*/ $constructor("ZodNonOptional", (inst, def) => {
    $ZodNonOptional.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => nonoptionalProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function nonoptional(innerType, params) {
    return new ZodNonOptional({
        type: "nonoptional",
        innerType: innerType,
        ...normalizeParams(params),
    });
}
const ZodSuccess = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodSuccess", (inst, def) => {
    core.$ZodSuccess.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.successProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
})));
function success(innerType) {
    return new ZodSuccess({
        type: "success",
        innerType: innerType,
    });
}
const ZodCatch = /*@__PURE__*/ $constructor("ZodCatch", (inst, def) => {
    $ZodCatch.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => catchProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
    inst.removeCatch = inst.unwrap;
});
function schemas_catch(innerType, catchValue) {
    return new ZodCatch({
        type: "catch",
        innerType: innerType,
        catchValue: (typeof catchValue === "function" ? catchValue : constantCatch(catchValue)),
    });
}

const ZodNaN = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodNaN", (inst, def) => {
    core.$ZodNaN.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.nanProcessor(inst, ctx, json, params);
})));
function nan(params) {
    return core._nan(ZodNaN, params);
}
const ZodPipe = /*@__PURE__*/ $constructor("ZodPipe", (inst, def) => {
    $ZodPipe.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => pipeProcessor(inst, ctx, json, params);
    inst.in = def.in;
    inst.out = def.out;
});
function pipe(in_, out) {
    return new ZodPipe({
        type: "pipe",
        in: in_,
        out: out,
        // ...util.normalizeParams(params),
    });
}
const ZodCodec = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodCodec", (inst, def) => {
    ZodPipe.init(inst, def);
    core.$ZodCodec.init(inst, def);
})));
function codec(in_, out, params) {
    return new ZodCodec({
        type: "pipe",
        in: in_,
        out: out,
        transform: params.decode,
        reverseTransform: params.encode,
    });
}
function invertCodec(codec) {
    const def = codec._zod.def;
    return new ZodCodec({
        type: "pipe",
        in: def.out,
        out: def.in,
        transform: def.reverseTransform,
        reverseTransform: def.transform,
    });
}
const ZodPreprocess = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodPreprocess", (inst, def) => {
    ZodPipe.init(inst, def);
    core.$ZodPreprocess.init(inst, def);
})));
const ZodReadonly = /*@__PURE__*/ $constructor("ZodReadonly", (inst, def) => {
    $ZodReadonly.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => readonlyProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function readonly(innerType) {
    return new ZodReadonly({
        type: "readonly",
        innerType: innerType,
    });
}
const ZodTemplateLiteral = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodTemplateLiteral", (inst, def) => {
    core.$ZodTemplateLiteral.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.templateLiteralProcessor(inst, ctx, json, params);
})));
function templateLiteral(parts, params) {
    return new ZodTemplateLiteral({
        type: "template_literal",
        parts,
        ...util.normalizeParams(params),
    });
}
const ZodLazy = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodLazy", (inst, def) => {
    core.$ZodLazy.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.lazyProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.getter();
})));
function lazy(getter) {
    return new ZodLazy({
        type: "lazy",
        getter: getter,
    });
}
const ZodPromise = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodPromise", (inst, def) => {
    core.$ZodPromise.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.promiseProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
})));
function promise(innerType) {
    return new ZodPromise({
        type: "promise",
        innerType: innerType,
    });
}
const ZodFunction = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodFunction", (inst, def) => {
    core.$ZodFunction.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.functionProcessor(inst, ctx, json, params);
})));
function _function(params) {
    return new ZodFunction({
        type: "function",
        input: Array.isArray(params?.input) ? tuple(params?.input) : (params?.input ?? array(unknown())),
        output: params?.output ?? unknown(),
    });
}

const ZodCustom = /*@__PURE__*/ $constructor("ZodCustom", (inst, def) => {
    $ZodCustom.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => customProcessor(inst, ctx, json, params);
});
// custom checks
function check(fn) {
    const ch = new core.$ZodCheck({
        check: "custom",
        // ...util.normalizeParams(params),
    });
    ch._zod.check = fn;
    return ch;
}
function custom(fn, _params) {
    return core._custom(ZodCustom, fn ?? (() => true), _params);
}
function refine(fn, _params = {}) {
    return _refine(ZodCustom, fn, _params);
}
// superRefine
function superRefine(fn, params) {
    return _superRefine(fn, params);
}
// Re-export describe and meta from core
const schemas_describe = describe;
const schemas_meta = meta;
const ZodInstanceOf = /*@__PURE__*/ $constructor("ZodInstanceOf", (inst, def) => {
    ZodCustom.init(inst, def);
}, {
    properties(shape, params) {
        // asserts in place, so the narrowed output type is truthful without a wrapper
        return this.check(_properties(shape, params));
    },
});
function _instanceof(cls, params = {}) {
    const inst = new ZodInstanceOf({
        type: "custom",
        check: "custom",
        fn: (data) => data instanceof cls,
        abort: true,
        ...util.normalizeParams(params),
    });
    inst._zod.bag.Class = cls;
    // Override check to emit invalid_type instead of custom
    inst._zod.check = (payload) => {
        if (!(payload.value instanceof cls)) {
            payload.issues.push({
                code: "invalid_type",
                expected: cls.name,
                input: payload.value,
                inst,
                path: [...(inst._zod.def.path ?? [])],
            });
        }
    };
    return inst;
}

// stringbool
const stringbool = (...args) => core._stringbool({
    Codec: ZodCodec,
    Boolean: ZodBoolean,
    String: ZodString,
}, ...args);
function json(params) {
    const jsonSchema = lazy(() => {
        return union([schemas_string(params), schemas_number(), schemas_boolean(), schemas_null(), array(jsonSchema), record(schemas_string(), jsonSchema)]);
    });
    return jsonSchema;
}
// preprocess
function preprocess(fn, schema) {
    return new ZodPreprocess({
        type: "pipe",
        in: transform(fn),
        out: schema,
    });
}

;// CONCATENATED MODULE: ./src/domain/input-fields.ts
/*
 * How each input of the gate is read from its text: booleans, durations, ids, operation ids and the
 * API's address, each with what it accepts and its default.
 */




/** The API's address when none is given. */
const DEFAULT_API_HOST = 'https://console.neon.tech/api/v2';
const DEFAULT_TIMEOUT = '10m';
const ID_PATTERN = /^[a-z0-9-]{1,60}$/;
/** A branch id, or a name (the API allows 256 characters); no control or invisible characters. */
const BRANCH_PATTERN = new RegExp(`^[^${UNSAFE_CHARACTER_CLASS}]{1,256}$`, 'u');
const ORG_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MIN_DURATION_MS = 1000;
/** Polling less often than hourly is no gate; the bound also keeps Node's timers exact. */
const MAX_INTERVAL_MS = 60 * 60 * 1000;
/** A self-hosted runner's job may run 5 days; a gate never needs longer. */
const MAX_TIMEOUT_MS = 5 * 24 * 60 * 60 * 1000;
/**
 * Each id is one request per poll: 40 is the API's per-route burst limit, and 40 requests every
 * 5 s is under 60 % of the account's 700 a minute.
 */
const MAX_OPERATION_IDS = 40;
/** What an HTTP header can carry: visible ASCII, no spaces. */
const API_KEY_PATTERN = /^[\x21-\x7e]+$/;
/** A key stored with its quotes (`"napi_…"`, `'napi_…'`): a quote never starts or ends a key. */
const QUOTED_KEY = /^["'`]|["'`]$/;
/** Neon's keys are under 100 characters; a value of over a kilobyte is a wrong file or variable. */
const MAX_API_KEY_CHARS = 1024;
/** The API key: required, as the console showed it (no quotes, nothing a header cannot carry). */
const apiKeyInput = schemas_string()
    .transform((raw) => raw.trim())
    .refine((key) => key !== '', 'required; pass the API key secret')
    .refine((key) => !QUOTED_KEY.test(key), 'is wrapped in quotes, which are not part of an API key (a secret stored as "napi_…" or \'napi_…\'); store the key without them')
    .refine((key) => key === '' || API_KEY_PATTERN.test(key), 'contains spaces, line breaks or characters an HTTP header cannot carry; pass the API key exactly as the console showed it')
    .refine((key) => key.length <= MAX_API_KEY_CHARS, `is longer than ${MAX_API_KEY_CHARS} characters, which no API key is: a wrong file or variable?`);
function booleanInput(defaultValue) {
    return schemas_string().transform((raw, ctx) => {
        const text = raw.trim();
        if (text === '')
            return defaultValue;
        if (['true', 'True', 'TRUE'].includes(text))
            return true;
        if (['false', 'False', 'FALSE'].includes(text))
            return false;
        ctx.addIssue({ code: 'custom', message: `"${text}" is not a boolean; use true or false` });
        return NEVER;
    });
}
const quotedAsGiven = (text) => `"${text}"`;
function durationInput(defaultText, maxMs, maxText, show = quotedAsGiven) {
    return schemas_string().transform((raw, ctx) => {
        const text = raw.trim() || defaultText;
        const ms = parseDuration(text);
        if (ms === undefined) {
            const negative = text.startsWith('-') && parseDuration(text.slice(1)) !== undefined;
            ctx.addIssue({
                code: 'custom',
                message: negative
                    ? `${show(text)} is negative; a duration is at least 1 second`
                    : `${show(text)} is not a duration; use seconds (5) or a number with a unit (5s, 90s, 1m)`
            });
            return NEVER;
        }
        if (ms < MIN_DURATION_MS) {
            ctx.addIssue({ code: 'custom', message: `${show(text)} is below the minimum of 1 second` });
            return NEVER;
        }
        if (ms > maxMs) {
            ctx.addIssue({ code: 'custom', message: `${show(text)} is above the maximum of ${maxText}` });
            return NEVER;
        }
        return ms;
    });
}
/** `timeout`: its problems show the value with `show` (the command reads it before its secrets). */
const timeoutInput = (show) => durationInput(DEFAULT_TIMEOUT, MAX_TIMEOUT_MS, '5 days (120h)', show);
function idInput(pattern, accepted) {
    return schemas_string().transform((raw, ctx) => {
        const text = raw.trim();
        if (raw === '')
            return undefined;
        // White space alone is no value, and never "not given", which would gate something else.
        if (text === '') {
            ctx.addIssue({
                code: 'custom',
                message: 'holds only white space: an unset value? Give one, or leave it empty'
            });
            return NEVER;
        }
        if (!pattern.test(text)) {
            ctx.addIssue({ code: 'custom', message: `"${text}" is not valid; expected ${accepted}` });
            return NEVER;
        }
        return text;
    });
}
/** Unicode's white space, and the byte-order mark a file or an editor can leave. */
const WHITE_SPACE_ALONE = /^[\p{White_Space}\uFEFF]+$/u;
/**
 * An input that is either not given (`undefined`: the runner passed none, or action.yml's default
 * stood for it) or given: then `field` reads it. Given as '' or white space alone, it is an input
 * error, never "not given": an expression that came out empty would otherwise run another gate.
 * `leftOut`: what leaving the input out does, for the message.
 */
function refusingEmpty(field, leftOut) {
    return schemas_string()
        .optional()
        .transform((raw, ctx) => {
        if (raw === undefined)
            return undefined;
        if (raw === '' || WHITE_SPACE_ALONE.test(raw)) {
            ctx.addIssue({
                code: 'custom',
                message: `${raw === '' ? 'is empty' : 'holds only white space'}, what an expression gives for an unset variable or a step output that does not exist; give a value, or ${leftOut}`
            });
            return NEVER;
        }
        const parsed = field.safeParse(raw);
        if (parsed.success)
            return parsed.data;
        for (const issue of parsed.error.issues)
            ctx.addIssue({ code: 'custom', message: issue.message });
        return NEVER;
    });
}
/**
 * `itself`: the input as the front end names it in a sentence; `gateInstead`: the inputs that gate
 * a project or a branch, named so too.
 */
function operationIdsInput(itself, gateInstead) {
    return schemas_string().transform((raw, ctx) => {
        const given = raw.split(/[\s,]+/).filter((id) => id !== '');
        // Separators alone (`,`: two unset step outputs joined) name no operation: never "not given",
        // which would be the project gate in their place. Only an empty value is not given.
        if (given.length === 0 && raw !== '') {
            ctx.addIssue({
                code: 'custom',
                message: `holds no operation id, only separators (commas, spaces or new lines): an unset step output? Give operation ids (UUIDs), or leave ${itself} out to gate the project or a branch (${gateInstead})`
            });
            return NEVER;
        }
        // An empty part (`a,`: a step output that came out empty, joined) may be the operation that
        // failed: never dropped without a word.
        if (raw.split(',').some((part) => part.trim() === '')) {
            ctx.addIssue({
                code: 'custom',
                message: `has an empty part between commas ("a,", ",a" or "a,,b"): an unset step output? Its operation may be the one that failed; give every id, or drop the comma`
            });
            return NEVER;
        }
        // Checked in lower case, quoted as given: a value folded in case would slip past the redactor.
        const invalid = given.filter((id) => !UUID_PATTERN.test(id.toLowerCase()));
        if (invalid.length > 0) {
            ctx.addIssue({
                code: 'custom',
                message: `${invalid.map((id) => `"${id}"`).join(', ')} ${invalid.length === 1 ? 'is not a UUID' : 'are not UUIDs'}; give operation ids (UUIDs) separated by commas, spaces or new lines`
            });
            return NEVER;
        }
        const unique = [...new Set(given.map((id) => id.toLowerCase()))];
        if (unique.length > MAX_OPERATION_IDS) {
            ctx.addIssue({
                code: 'custom',
                message: `${unique.length} operation ids given, at most ${MAX_OPERATION_IDS} are accepted (each is one request per poll against the account's shared rate limit); gate the project or branch instead (${gateInstead})`
            });
            return NEVER;
        }
        return unique;
    });
}
const apiHostInput = schemas_string().transform((raw, ctx) => {
    const text = raw.trim() || DEFAULT_API_HOST;
    const accepted = 'an absolute https:// address (http:// only for localhost, 127.x.x.x or [::1])';
    let url;
    try {
        url = new URL(text);
    }
    catch {
        const shown = /[@\s]/.test(text) ? 'the value' : `"${text}"`;
        ctx.addIssue({ code: 'custom', message: `${shown} is not an address; expected ${accepted}` });
        return NEVER;
    }
    // Credentials, even empty ones (`https://@host`), are never repeated in the error.
    if (url.username || url.password || /^[^:/?#]+:\/\/[^/?#]*@/.test(text)) {
        ctx.addIssue({ code: 'custom', message: `must not carry credentials; expected ${accepted}` });
        return NEVER;
    }
    const loopbackHttp = url.protocol === 'http:' && isLoopbackHost(url.hostname);
    if (url.protocol !== 'https:' && !loopbackHttp) {
        ctx.addIssue({ code: 'custom', message: `"${text}" is not allowed; expected ${accepted}` });
        return NEVER;
    }
    // An empty query or fragment (a trailing `?` or `#`) is none to URL, but every path appended
    // to the address would go after it: `/api/v2?/projects/…`, or to `/api/v2` itself.
    if (/[?#]/.test(text)) {
        ctx.addIssue({
            code: 'custom',
            message: `must not carry a query or a fragment (?, #): every request would go to the wrong path; expected ${accepted}`
        });
        return NEVER;
    }
    return url.toString().replace(/\/+$/, '');
});

;// CONCATENATED MODULE: ./src/domain/schemas.ts


/*
 * Response schemas. Only the fields the action needs are required; everything else the spec or the
 * live API lists is optional (the live API omits some documented fields and sends many more).
 * Unknown fields are stripped, unknown status strings are accepted (classified later).
 */
const optionalString = schemas_string().nullish();
/**
 * An id as Neon's API description gives every id (`br-cool-name-123456`, `^[a-z0-9-]{1,60}$`): one
 * word in a shell, a log line or a command line. Answers are read with any id (the gate only
 * compares them); what a recipe deletes by (the sweep's `stale`) holds only ids parsed with this.
 */
const NeonIdSchema = schemas_string().regex(ID_PATTERN).brand();
const optionalInteger = schemas_number().int().nullish();
const OperationSchema = object({
    id: schemas_string().min(1),
    status: schemas_string().min(1),
    project_id: optionalString,
    branch_id: optionalString,
    endpoint_id: optionalString,
    action: optionalString,
    failures_count: optionalInteger,
    error: optionalString,
    retry_at: optionalString,
    created_at: optionalString,
    updated_at: optionalString,
    total_duration_ms: optionalInteger
});
const PaginationSchema = object({ cursor: optionalString });
const OperationResponseSchema = object({ operation: OperationSchema });
/** The list is walked by creation time, so `created_at` is required there. */
const OperationListSchema = object({
    operations: array(OperationSchema.extend({ created_at: schemas_string().min(1) })),
    pagination: PaginationSchema.nullish()
});
const ProjectSchema = object({
    id: schemas_string().min(1),
    name: optionalString,
    platform_id: optionalString,
    region_id: optionalString,
    provisioner: optionalString,
    pg_version: optionalInteger,
    locked: schemas_boolean().nullish(),
    cpu_used_sec: schemas_number().nullish(),
    branch_logical_size_limit: schemas_number().nullish(),
    proxy_host: optionalString,
    org_id: optionalString,
    created_at: optionalString,
    updated_at: optionalString
});
const ProjectListSchema = object({
    projects: array(ProjectSchema),
    pagination: PaginationSchema.nullish(),
    unavailable_project_ids: array(schemas_string()).nullish()
});
/**
 * A branch: the gate needs its id and its name (to resolve `branch_id: main`), and whether it can
 * be queried yet (`current_state`, `pending_state`).
 */
const BranchSchema = object({
    id: schemas_string().min(1),
    name: schemas_string(),
    project_id: optionalString,
    current_state: optionalString,
    pending_state: optionalString,
    /** How far back the branch gate's first read goes: the branch has no operation before it. */
    created_at: optionalString
});
const BranchResponseSchema = object({ branch: BranchSchema });
const BranchPaginationSchema = object({ next: optionalString }).nullish();
/** Branch lists keep the next page's cursor in `pagination.next`. */
const BranchListSchema = object({
    branches: array(BranchSchema),
    pagination: BranchPaginationSchema
});
/**
 * A branch as a check before a teardown reads it (`before`): what makes the API refuse to delete or
 * reset it. Read only then, so that a gate without `before` never depends on these fields.
 */
const TeardownBranchSchema = BranchSchema.extend({
    parent_id: optionalString,
    default: schemas_boolean().nullish(),
    /** Older answers' name of `default` (deprecated): counts only where `default` is absent. */
    primary: schemas_boolean().nullish(),
    protected: schemas_boolean().nullish(),
    restricted_actions: array(object({ name: schemas_string(), reason: optionalString })).nullish()
});
const TeardownBranchResponseSchema = object({ branch: TeardownBranchSchema });
/**
 * Every branch of the project with its parent (the children of the one to delete or reset), and
 * what a sweep judges each by: what a teardown reads of one branch, and when it last changed.
 */
const BranchFamilyListSchema = object({
    branches: array(TeardownBranchSchema.extend({ updated_at: optionalString })),
    pagination: BranchPaginationSchema
});
/**
 * A compute of a branch (`GET …/branches/{id}/endpoints`): its id, and its own state (`idle`,
 * `active`, `init`; `pending_state` while a change is on its way). Its `host` is never kept.
 */
const ComputeSchema = object({
    id: schemas_string().min(1),
    branch_id: optionalString,
    project_id: optionalString,
    current_state: optionalString,
    pending_state: optionalString
});
const ComputeListSchema = object({ endpoints: array(ComputeSchema) });
/**
 * Every compute of a project (`GET /projects/{id}/endpoints`, one list, not paged), with its branch
 * and when it was last active: a sweep's evidence of use that the branch's `updated_at` misses.
 */
const ProjectComputeListSchema = object({
    endpoints: array(ComputeSchema.extend({ branch_id: schemas_string().min(1), last_active: optionalString }))
});
const OrganizationSchema = object({ id: schemas_string().min(1), name: optionalString });
const OrganizationListSchema = object({ organizations: array(OrganizationSchema) });
const ErrorBodySchema = object({
    code: optionalString,
    message: optionalString,
    request_id: optionalString
});

;// CONCATENATED MODULE: ./src/api/answers.ts



/** The error an answer with a status other than 2xx is, with what its body and headers say. */
function apiErrorFrom(raw, endpoint, subject, redactor) {
    let body = {};
    try {
        const parsed = ErrorBodySchema.safeParse(JSON.parse(raw.body));
        if (parsed.success)
            body = redactor.redactJson(parsed.data);
    }
    catch {
        // An error answer without a JSON body still has its status.
    }
    // Redacted before it is cut: a cut through the key would leave a part no redaction matches.
    const header = (name) => {
        const value = raw.headers[name];
        return typeof value === 'string' ? truncate(redactor.redact(value), 200) : undefined;
    };
    return new ApiError({
        status: raw.status,
        endpoint,
        subject,
        code: body.code ?? undefined,
        apiMessage: body.message ?? undefined,
        requestId: body.request_id ?? undefined,
        retryAfter: header('retry-after'),
        location: header('location')
    });
}
/**
 * The body of a 2xx answer as JSON. One that is not JSON at all (a proxy's or a gateway's HTML
 * page with status 200, a body cut short) is retried like an answer cut off in transit: only a
 * run of them until the deadline ends the gate. JSON of the wrong shape is the API's answer, and
 * an error at once (parseBody).
 */
function jsonOf(raw, endpoint, redactor) {
    try {
        return JSON.parse(raw.body);
    }
    catch {
        const type = raw.headers['content-type'];
        const bytes = `${Buffer.byteLength(raw.body)} bytes`;
        // Redacted before it is cut: a cut through the key would leave a part no redaction matches.
        const said = typeof type === 'string' ? `${bytes} of ${truncate(redactor.redact(type), 80)}` : bytes;
        throw new NotJsonError(endpoint, `${said}, a proxy's page?`);
    }
}
/**
 * JSON checked against the schema, which drops every field the action does not use, then the
 * secrets redacted from every string that is left: the cost follows what the action reads, not
 * what the server sends (millions of strings in an ignored field, or JSON nested a million deep).
 */
function parseBody(json, schema, endpoint, redactor) {
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue.path.length > 0 ? issue.path.join('.') : '(body)';
        throw new ResponseFormatError(endpoint, redactor.redact(`field "${field}": ${issue.message}`));
    }
    return redactor.redactJson(parsed.data);
}
/** What is wrong when an answer holds a branch or an operation of another project than asked. */
function strangerIn(items, projectId, what) {
    const stranger = items.find((item) => item.project_id && item.project_id !== projectId);
    return (stranger &&
        `${what} "${stranger.id}" belongs to project "${stranger.project_id}", not the one asked for`);
}

;// CONCATENATED MODULE: ./src/api/api-request.ts
/** The request's path (each segment URL-encoded) and its target: the path with the query set. */
function pathOf(segments, query) {
    const path = '/' + segments.map(encodeURIComponent).join('/');
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
        if (value !== undefined)
            search.set(name, value);
    }
    return { path, target: `${path}${search.size > 0 ? `?${search}` : ''}` };
}

;// CONCATENATED MODULE: ./src/api/host-resolution.ts



class HostResolution {
    clock;
    pace;
    /** When the host name first failed to resolve, in the streak of such failures now running. */
    unresolvedSince;
    /** The last such failure, and what to check for it. */
    lastUnresolved;
    /** Whether a host name of this run resolved at least once (an answer, or another failure). */
    resolvedOnce = false;
    constructor(clock, pace) {
        this.clock = clock;
        this.pace = pace;
    }
    /** An answer came: the name resolved. */
    resolved() {
        this.unresolvedSince = undefined;
        this.resolvedOnce = true;
    }
    /**
     * A host name that does not resolve is retried for RECOVERY_INTERVALS intervals from the first
     * such answer; past that, it is an error.
     */
    check(error, endpoint, detail) {
        if (!error.unresolved) {
            this.resolved();
            return;
        }
        this.lastUnresolved = { detail, culprit: error.culprit };
        const now = this.clock.now();
        this.unresolvedSince ??= now;
        const lastedMs = now - this.unresolvedSince;
        if (lastedMs >= RECOVERY_INTERVALS * this.pace.intervalMs) {
            throw new UnrecoverableRequestError(endpoint, `${detail}; the name has not resolved for ${formatDuration(lastedMs)}`, error.culprit);
        }
    }
    /**
     * The deadline came while no host name of this run had ever resolved (every request failed so):
     * a misspelled api_host, not a gate that waited too long. It ends as the error it would have
     * become after RECOVERY_INTERVALS intervals, naming what to check, also when `timeout` is shorter
     * than that. A name that resolved once and then failed is the resolver's moment: a timeout.
     */
    async toTheEnd(endpoint, request) {
        try {
            return await request();
        }
        catch (error) {
            const last = this.lastUnresolved;
            const neverResolved = !this.resolvedOnce && this.unresolvedSince !== undefined && last;
            if (!(error instanceof DeadlineExceededError) || !neverResolved)
                throw error;
            throw new UnrecoverableRequestError(endpoint, `${last.detail}; the name never resolved before the timeout ran out`, last.culprit);
        }
    }
}

;// CONCATENATED MODULE: ./src/api/read-window.ts
/*
 * Reading once (`wait: false`, or a sweep), the time a request may go on without a usable answer:
 * RECOVERY_INTERVALS intervals from its start, before that is an error. The waits a 429 asks for do
 * not count: a rate limit is the API answering, so a sweep over hundreds of pages rides a storm of
 * them out until `timeout`, while silence, a 5xx or a proxy's page still ends the read within
 * 3 intervals. Unset while waiting: then a request retries until the deadline.
 */

/** A 429: the API answered, asking for a wait. */
function rateLimited(error) {
    return error instanceof ApiError && error.status === 429;
}
class ReadWindow {
    deadline;
    endsAt;
    /** From `now`, `withinMs` long (undefined: no window), within the run's `deadline`. */
    constructor(now, withinMs, deadline) {
        this.deadline = deadline;
        this.endsAt = withinMs === undefined ? Infinity : now + withinMs;
    }
    /** When the request gives up (monotonic clock time); Infinity without a window. */
    get giveUpAt() {
        return this.endsAt;
    }
    /**
     * Whether the window, not the run's deadline, ended a read whose last error was `lastError` (then
     * it is no timeout): never after a 429, whose retries only the deadline ends.
     */
    endedRead(lastError) {
        return !rateLimited(lastError) && this.endsAt <= this.deadline;
    }
    /**
     * The last moment a retry after `error` may start: the deadline after a 429; else before the
     * window's end, as a request started when it ends has no time (the least, 1 ms, goes unanswered).
     */
    retryDeadline(error) {
        return rateLimited(error) ? this.deadline : Math.min(this.deadline, this.endsAt - 1);
    }
    /** A retry after `error` is about to wait `delayMs`: a 429's wait moves the window's end on. */
    waiting(error, delayMs) {
        if (rateLimited(error))
            this.endsAt += delayMs;
    }
}

;// CONCATENATED MODULE: ./src/api/api-core.ts









/** The first wait before retrying a request that is not a poll (it is not paced by polling). */
const LISTING_RETRY_FLOOR_MS = 2000;
/** Requests outside the wait (listing projects, finding the organization) retry from 2 s. */
const LISTING_PACING = () => ({
    minimumMs: LISTING_RETRY_FLOOR_MS,
    nextPollMs: LISTING_RETRY_FLOOR_MS
});
/** The largest answer read; a page of 500 operations is well under 1 MiB. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/**
 * Requests may start, and must be over, until this long after the deadline (so the last read at the
 * deadline can happen): nothing the client does outlives `timeout` by more than this.
 */
const DEADLINE_GRACE_MS = 1000;
class ApiCore {
    options;
    stats = { requests: 0, retries: 0, answered: 0, read: 0 };
    baseUrl;
    host;
    pollPacing = () => ({
        minimumMs: this.options.pace.intervalMs,
        nextPollMs: this.options.pace.nextPollDelayMs()
    });
    constructor(options) {
        this.options = options;
        this.baseUrl = options.baseUrl.replace(/\/+$/, '');
        this.host = new HostResolution(options.clock, options.pace);
    }
    async get(request) {
        const { segments, query = {}, schema, subject, mismatch } = request;
        const pacing = request.pacing === 'poll' ? this.pollPacing : LISTING_PACING;
        const { path, target } = pathOf(segments, query);
        const endpoint = `GET ${path}`;
        const url = new URL(`${this.baseUrl}${target}`);
        const { clock, logger, readOnceWithinMs } = this.options;
        const window = new ReadWindow(clock.now(), readOnceWithinMs, this.options.deadline);
        const answer = await this.readOnce(endpoint, window, () => this.host.toTheEnd(endpoint, () => withRetries(async () => {
            if (clock.now() >= this.options.deadline + DEADLINE_GRACE_MS) {
                throw new DeadlineExceededError();
            }
            this.stats.requests++;
            logger.debug(`GET ${target}`);
            const raw = await this.send(url, endpoint, window.giveUpAt);
            if (raw.status < 200 || raw.status > 299) {
                throw apiErrorFrom(raw, endpoint, subject, this.options.redactor);
            }
            return jsonOf(raw, endpoint, this.options.redactor);
        }, {
            policy: this.options.retryPolicy,
            clock,
            pacing,
            deadline: (error) => window.retryDeadline(error),
            signal: this.options.signal,
            ...this.retryHooks(endpoint, window)
        })));
        const parsed = parseBody(answer, schema, endpoint, this.options.redactor);
        const problem = mismatch?.(parsed);
        if (problem)
            throw new ResponseFormatError(endpoint, problem);
        this.stats.read++;
        return parsed;
    }
    /**
     * What the retries of a request do beside retrying: a 429 slows the pace, and its wait does not
     * count against the time a read without waiting has; each retry is told.
     */
    retryHooks(endpoint, window) {
        const { logger, pace } = this.options;
        return {
            onFailure: (error) => {
                if (rateLimited(error))
                    pace.onRateLimited();
            },
            onRetry: (decision, error) => {
                window.waiting(error, decision.delayMs);
                this.stats.retries++;
                logger.debug(error.message);
                logger.info(`${endpoint}: ${decision.reason}; ${decision.delayMs > 0 ? `retrying in ${formatDuration(decision.delayMs)}` : 'retrying now, the wait spent on it'}`);
            }
        };
    }
    /**
     * One request, bounded by the per-request limit, the deadline (plus grace), the time a read
     * without waiting gives it (`giveUpAt`), and the signal.
     */
    async send(url, endpoint, giveUpAt) {
        const { clock, signal } = this.options;
        signal?.throwIfAborted();
        // Cut at the deadline; only a request started in its last second (the last read) gets the grace.
        const untilDeadline = this.options.deadline - clock.now();
        const timeLimitMs = Math.max(1, Math.min(this.options.requestTimeoutMs, untilDeadline >= DEADLINE_GRACE_MS ? untilDeadline : untilDeadline + DEADLINE_GRACE_MS, giveUpAt - clock.now()));
        const sentAt = clock.now();
        try {
            const answer = await this.options.transport(url, {
                headers: {
                    Authorization: `Bearer ${this.options.apiKey}`,
                    Accept: 'application/json',
                    'User-Agent': `${ACTION_NAME}/${ACTION_VERSION}`
                },
                timeLimitMs,
                maxBodyBytes: MAX_BODY_BYTES,
                signal
            });
            this.stats.answered++;
            this.host.resolved();
            this.options.onDate?.(answer.headers.date, sentAt);
            return answer;
        }
        catch (error) {
            if (signal?.aborted || !(error instanceof TransportError))
                throw error;
            const detail = this.options.redactor.redact(error.detail);
            this.host.check(error, endpoint, detail);
            throw requestErrorOf(error, endpoint, detail, timeLimitMs);
        }
    }
    /**
     * Reading once (`wait: false`, a sweep), a request that got no usable answer within its window
     * is an error no retry within the run can fix (the command's exit code 3), not a timeout: the gate
     * did not wait, and `timeout` did not run out. When `timeout` ends first, it is the timeout.
     */
    async readOnce(endpoint, window, request) {
        try {
            return await request();
        }
        catch (error) {
            if (!(error instanceof DeadlineExceededError) || !window.endedRead(error.lastError)) {
                throw error;
            }
            const withinMs = this.options.readOnceWithinMs ?? 0;
            const last = error.lastError ? `; last error: ${error.lastError.message}` : '';
            throw new UnrecoverableRequestError(endpoint, `no usable answer within ${formatDuration(withinMs)} (${RECOVERY_INTERVALS} intervals), as long as a read without waiting tries${last}`, 'the API');
        }
    }
}

;// CONCATENATED MODULE: ./src/api/paging.ts
/*
 * The one paging rule for every list of the API. Lists say in different ways that a page was the
 * last, so each reader says how:
 * - operations and projects keep the next page's cursor in `pagination.cursor`, present on every
 *   page (it is the last item's key): a page shorter than asked is the last, except where a capped
 *   page must not hide the rest (the project gate's first poll reads on to an empty page). A page
 *   that has items but no cursor where the list's rule says more may follow ends the walk short of
 *   the list's end (`no cursor`), never at it: what lies past it was not read;
 * - branches keep it in `pagination.next`, absent on the last page: a page may be shorter than asked
 *   (a server may cap `limit`), or even empty, and still have a next one, so only `next` ends the
 *   list (or an empty page whose `next` the walk has seen: nothing lies past it).
 */
/** The ends short of the list's end that the API caused, as messages say them. */
const SERVER_STOPS = {
    'repeated cursor': 'a page cursor handed out twice',
    'no cursor': 'a page without a cursor to read on from'
};
/**
 * Reads pages until the last one (without a cursor, or empty or short where the list's rule says so),
 * until `onPage` returns false, until `maxPages`, until the API hands out a cursor it gave before
 * (a server that cycles must not keep the walk going forever), or until a page that is not the last
 * gives no cursor. Says which of these ended it.
 */
async function walkPages(readPage, walk) {
    const cursors = new Set();
    let cursor;
    for (let pages = 1;; pages++) {
        const page = await readPage(cursor);
        if (walk.onPage(page) === false)
            return 'stopped';
        const next = walk.nextCursor(page) ?? undefined;
        const length = walk.length(page);
        const repeated = next !== undefined && (cursors.has(next) || next === cursor);
        if (length === 0 && (walk.lastPage !== 'next' || repeated || !next))
            return 'last page';
        if (walk.lastPage === 'short' && length < walk.limit)
            return 'last page';
        if (!next)
            return walk.lastPage === 'next' ? 'last page' : 'no cursor';
        if (repeated)
            return 'repeated cursor';
        if (pages >= walk.maxPages)
            return 'page cap';
        cursors.add(next);
        cursor = next;
    }
}

;// CONCATENATED MODULE: ./src/api/resources/branches.ts




/** Branches a page of a search (the API accepts 1-10,000). */
const BRANCH_PAGE_LIMIT = 100;
/** At most this many pages of a search (5,000 branches), with a warning if reached. */
const MAX_BRANCH_PAGES = 50;
class BranchesReader {
    core;
    logger;
    constructor(core, logger) {
        this.core = core;
        this.logger = logger;
    }
    /** One branch by id; the answer must be that branch, of that project. */
    async getBranch(projectId, branchId) {
        return this.readBranch(projectId, branchId, BranchResponseSchema);
    }
    /**
     * The same, with what decides whether it can be deleted or reset: its parent, `default`,
     * `protected` and `restricted_actions`.
     */
    async getTeardownBranch(projectId, branchId) {
        return this.readBranch(projectId, branchId, TeardownBranchResponseSchema);
    }
    /**
     * The computes of a branch, as the API lists them (one list, not paged); each must be of that
     * branch and project.
     */
    async listComputes(projectId, branchId) {
        const { endpoints } = await this.core.get({
            segments: ['projects', projectId, 'branches', branchId, 'endpoints'],
            schema: ComputeListSchema,
            subject: `the compute list of branch "${branchId}" of project "${projectId}"`,
            pacing: 'poll',
            mismatch: (list) => list.endpoints.find((compute) => compute.branch_id && compute.branch_id !== branchId)
                ? `a compute of another branch than "${branchId}" is listed`
                : strangerIn(list.endpoints, projectId, 'compute')
        });
        return endpoints;
    }
    /**
     * Every branch of the project whose name or id contains `search` (the API's own partial match),
     * across every page: the one named exactly so can be on any of them.
     */
    async searchBranches(projectId, search, budget) {
        const { branches, end } = await this.everyBranch(projectId, BranchListSchema, {
            search,
            budget
        });
        if (end) {
            this.logger.warning(`Looked at the first ${branches.length} branches whose name or id contains "${search}" only (${end})`);
        }
        return branches;
    }
    /**
     * Every branch of the project with its parent, across every page (within `budget`, when given):
     * whose parent is whose. `unseen` says what a list cut short may miss.
     */
    async listBranches(projectId, { budget, unseen = 'a child branch among the others is not seen', oldestFirst } = {}) {
        const { branches, end } = await this.everyBranch(projectId, BranchFamilyListSchema, {
            budget,
            oldestFirst
        });
        if (end) {
            this.logger.warning(`Read ${plural(branches.length, 'branch', 'branches')} of project "${projectId}" and stopped there (${end}): ${unseen}`);
        }
        return { branches, cut: end };
    }
    async readBranch(projectId, branchId, schema) {
        const { branch } = await this.core.get({
            segments: ['projects', projectId, 'branches', branchId],
            schema,
            subject: `branch "${branchId}" of project "${projectId}"`,
            pacing: 'poll',
            mismatch: ({ branch }) => branch.id !== branchId
                ? `the answer is branch "${branch.id}", not the one asked for`
                : strangerIn([branch], projectId, 'branch')
        });
        return branch;
    }
    /**
     * The branches of every page (those `search` matches, when given), each once however many pages
     * show it; `end` says why the walk stopped short of the last page, if it did.
     */
    async everyBranch(projectId, schema, { search, oldestFirst, budget = { pages: MAX_BRANCH_PAGES } }) {
        const found = new Map();
        const maxPages = budget.pages;
        const order = oldestFirst ? { sort_by: 'updated_at', sort_order: 'asc' } : {};
        const end = await walkPages((cursor) => this.core.get({
            segments: ['projects', projectId, 'branches'],
            query: { search, ...order, limit: String(BRANCH_PAGE_LIMIT), cursor },
            schema,
            subject: `the branch list of project "${projectId}"`,
            pacing: 'poll',
            mismatch: (list) => strangerIn(list.branches, projectId, 'branch')
        }), {
            limit: BRANCH_PAGE_LIMIT,
            maxPages,
            length: (page) => page.branches.length,
            nextCursor: (page) => page.pagination?.next,
            lastPage: 'next',
            // Pages may overlap at their edges: each branch counts once.
            onPage: (page) => {
                budget.pages--;
                for (const branch of page.branches)
                    found.set(branch.id, branch);
            }
        });
        const why = end === 'page cap'
            ? `${maxPages} pages`
            : end === 'repeated cursor'
                ? 'the API repeated a page cursor'
                : undefined;
        return { branches: [...found.values()], end: why };
    }
}

;// CONCATENATED MODULE: ./src/api/resources/computes.ts


class ComputesReader {
    core;
    constructor(core) {
        this.core = core;
    }
    /**
     * Every compute of the project (`GET /projects/{id}/endpoints`: one list, not paged, as Neon's
     * OpenAPI document has it), each of that project and naming its branch.
     */
    async listProjectComputes(projectId) {
        const { endpoints } = await this.core.get({
            segments: ['projects', projectId, 'endpoints'],
            schema: ProjectComputeListSchema,
            subject: `the compute list of project "${projectId}"`,
            pacing: 'poll',
            mismatch: (list) => strangerIn(list.endpoints, projectId, 'compute')
        });
        return endpoints;
    }
}

;// CONCATENATED MODULE: ./src/api/resources/operations.ts




class OperationsReader {
    core;
    constructor(core) {
        this.core = core;
    }
    /** One operation; the answer must be that operation of that project. */
    async getOperation(projectId, operationId) {
        const { operation } = await this.core.get({
            segments: ['projects', projectId, 'operations', operationId],
            schema: OperationResponseSchema,
            subject: `operation "${operationId}" of project "${projectId}"`,
            pacing: 'poll',
            mismatch: ({ operation }) => operation.id.toLowerCase() !== operationId.toLowerCase()
                ? `the answer is operation "${operation.id}", not the one asked for`
                : strangerIn([operation], projectId, 'operation')
        });
        return operation;
    }
    /** One page of the project's operations, newest first; each must belong to the project. */
    listOperations(projectId, page) {
        return this.core.get({
            segments: operationsSegments(projectId),
            query: { limit: String(page.limit), cursor: page.cursor },
            schema: OperationListSchema,
            subject: `project "${projectId}"`,
            pacing: 'poll',
            mismatch: (list) => strangerIn(list.operations, projectId, 'operation')
        });
    }
}
const operationsSegments = (projectId) => ['projects', projectId, 'operations'];
/** The operations list's endpoint, as errors name it. */
const operationsEndpoint = (projectId) => `GET ${pathOf(operationsSegments(projectId), {}).path}`;
/** Where the operations list keeps the next page's cursor. */
const operationsCursor = (page) => page.pagination?.cursor;
/** The operations list, newest first, walked by `walkPages` from where `readPage` starts. */
function walkOperations(readPage, walk) {
    return walkPages(readPage, {
        ...walk,
        length: (page) => page.operations.length,
        nextCursor: operationsCursor
    });
}

;// CONCATENATED MODULE: ./src/api/resources/organizations.ts

class OrganizationsReader {
    core;
    constructor(core) {
        this.core = core;
    }
    async listOrganizations() {
        const { organizations } = await this.core.get({
            segments: ['users', 'me', 'organizations'],
            schema: OrganizationListSchema,
            subject: 'the organization list of the key',
            pacing: 'listing'
        });
        return organizations;
    }
}

;// CONCATENATED MODULE: ./src/api/resources/projects.ts




/** The live API accepts 1-400 projects per page (default 10). */
const PROJECTS_PAGE_LIMIT = 400;
/** At most this many pages of projects (20,000 projects), with a warning if reached. */
const MAX_PROJECT_PAGES = 50;
/** How many organizations an error lists. */
const MAX_LISTED_ORGANIZATIONS = 10;
class ProjectsReader {
    core;
    organizations;
    logger;
    constructor(core, organizations, logger) {
        this.core = core;
        this.organizations = organizations;
        this.logger = logger;
    }
    async listProjects(orgId) {
        try {
            return await this.listPages(orgId);
        }
        catch (error) {
            if (orgId || !(error instanceof ApiError))
                throw error;
            // A refusal of the API's (exit code 3), whose cause the answer does not say: a hint only.
            if (error.status === 403) {
                throw new WordedError((naming) => `${error.worded(naming)}. If the key is project-scoped, list the projects with an organization key or a personal key; a personal key may need ${naming.mention('org_id')}`);
            }
            if (error.status !== 400 || !/org_id/.test(error.apiMessage ?? ''))
                throw error;
            const organization = await this.onlyOrganization(error);
            this.logger.info(`A personal key must name its organization: listing the projects of its only one, ${truncate(organization.name ?? '', 80)} (${organization.id})`);
            return { ...(await this.listPages(organization.id)), organization };
        }
    }
    /** The key's one organization; an input error naming `org_id` when it has several. */
    async onlyOrganization(refusal) {
        const explained = (why) => new WordedError((naming) => `${refusal.worded(naming)}. The key must name its organization (${naming.label('org_id')}), and ${why}`);
        let organizations;
        try {
            organizations = await this.organizations.listOrganizations();
        }
        catch (error) {
            if (!(error instanceof ApiError))
                throw error;
            throw explained(`reading its organizations failed: ${error.message}`);
        }
        if (organizations.length === 1)
            return organizations[0];
        if (organizations.length === 0)
            throw explained('the key belongs to no organization');
        const listed = organizations
            .slice(0, MAX_LISTED_ORGANIZATIONS)
            .map((organization) => `${organization.id} (${JSON.stringify(truncate(organization.name ?? '', 60))})`);
        if (organizations.length > MAX_LISTED_ORGANIZATIONS) {
            listed.push(`and ${organizations.length - MAX_LISTED_ORGANIZATIONS} more`);
        }
        throw new InputError(({ label, mention }) => `${label('org_id')}: required, because the key belongs to ${organizations.length} organizations: ${listed.join(', ')}; set ${mention('org_id')} to one of them`);
    }
    async listPages(orgId) {
        const projects = new Map();
        const unavailable = new Set();
        const end = await walkPages((cursor) => this.core.get({
            segments: ['projects'],
            query: { limit: String(PROJECTS_PAGE_LIMIT), cursor, org_id: orgId },
            schema: ProjectListSchema,
            subject: orgId ? `the project list of organization "${orgId}"` : 'the list of projects',
            pacing: 'listing'
        }), {
            limit: PROJECTS_PAGE_LIMIT,
            maxPages: MAX_PROJECT_PAGES,
            length: (page) => page.projects.length,
            nextCursor: (page) => page.pagination?.cursor,
            lastPage: 'short',
            onPage: (page) => {
                for (const project of page.projects)
                    projects.set(project.id, project);
                for (const id of page.unavailable_project_ids ?? [])
                    unavailable.add(id);
            }
        });
        if (end === 'page cap') {
            this.logger.warning(`Listed the first ${MAX_PROJECT_PAGES} pages of projects only (${projects.size} projects)`);
        }
        else if (end === 'repeated cursor') {
            this.logger.warning(`The API handed out a page cursor it had given before; stopped listing at ${projects.size} projects`);
        }
        else if (end === 'no cursor') {
            this.logger.warning(`The API gave a full page without a cursor to read on from; stopped listing at ${projects.size} projects`);
        }
        return { projects: [...projects.values()], unavailableProjectIds: [...unavailable] };
    }
}

;// CONCATENATED MODULE: ./src/api/api-client.ts
/**
 * The management API as the action reads it, the way Neon's SDK (neondatabase/neon-pkgs) lays it
 * out: one small request core (src/api/api-core.ts) and a reader per resource
 * (src/api/resources/), each with its schema and its answer checks. The wait loop and the sources
 * depend on the readers' small interfaces, never on this whole.
 */






class ApiClient {
    stats;
    operations;
    branches;
    computes;
    projects;
    constructor(options) {
        const core = new ApiCore(options);
        this.stats = core.stats;
        this.operations = new OperationsReader(core);
        this.branches = new BranchesReader(core, options.logger);
        this.computes = new ComputesReader(core);
        this.projects = new ProjectsReader(core, new OrganizationsReader(core), options.logger);
    }
}

;// CONCATENATED MODULE: ./src/gate/api-client-of.ts
/*
 * The run's API client: the inputs' address and key, the run's pace and deadline, its clock, which
 * takes the API's time from each answer's Date header, and its transport (the network, or a
 * simulated one).
 */


/**
 * The client of a run on `inputs`; reading once (`wait: false`, or a plan that waits for nothing),
 * a read gives up within 3 intervals.
 */
function apiClientOf(inputs, readsOnce, parts) {
    const { clock } = parts;
    return new ApiClient({
        ...parts,
        onDate: (date, sentAt) => clock.observe(date, sentAt),
        baseUrl: inputs.apiHost,
        apiKey: inputs.apiKey,
        requestTimeoutMs: requestTimeLimitMs(inputs.intervalMs),
        readOnceWithinMs: readsOnce ? RECOVERY_INTERVALS * inputs.intervalMs : undefined
    });
}

;// CONCATENATED MODULE: ./src/wait/near-branch.ts
/** Edits (a character inserted, deleted or replaced) in the rest of two names that are still near. */
const MAX_EDITS = 3;
/**
 * Width and case set aside: upper case, where `ß` and `SS`, `ς` and `σ` are alike (lower case keeps
 * them apart).
 */
const folded = (text) => text.normalize('NFKC').toUpperCase();
/**
 * A name or id with width, case, white space, quotes and separators set aside: `Preview/PR-12`,
 * `"preview-pr-12"`, `preview\pr‐12` (a Unicode hyphen) and `preview_pr_１２` are all `PREVIEWPR12`.
 */
function loosely(text) {
    return folded(text).replace(/[\s\p{Quotation_Mark}`/\\_.\p{Dash}]/gu, '');
}
/** A name and its ends after each `/`, set aside as `loosely` says: `preview/pr-12`, `pr-12`. */
function looseEnds(name) {
    const parts = name.split('/').map(loosely);
    return parts.map((_, index) => parts.slice(index).join('')).filter((end) => end !== '');
}
/** A name's numbers without their leading zeros, and the rest: `preview/pr-012` is 12 and `preview/pr-`. */
function numbersAndRest(name) {
    const text = folded(name);
    const numbers = [...text.matchAll(/\d+/g)].map(([digits]) => digits.replace(/^0+(?=\d)/, ''));
    return { numbers: numbers.join(' '), rest: Array.from(text.replace(/\d/g, '')) };
}
/** Whether `a` and `b` are at most `max` edits apart (Levenshtein, row by row). */
function withinEdits(a, b, max) {
    if (Math.abs(a.length - b.length) > max)
        return false;
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
        const current = [i];
        for (let j = 1; j <= b.length; j++) {
            const replace = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
            current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, replace);
        }
        previous = current;
    }
    return previous[b.length] <= max;
}
/** The branches near `input`, which is the id and the name of none of them. */
function nearBranches(branches, input) {
    const key = loosely(input);
    const inputEnds = looseEnds(input);
    const given = numbersAndRest(input);
    const sameNumbersFewEdits = (name) => {
        const other = numbersAndRest(name);
        return (given.numbers !== '' &&
            other.numbers === given.numbers &&
            withinEdits(given.rest, other.rest, MAX_EDITS));
    };
    return branches.filter((branch) => loosely(branch.id) === key ||
        looseEnds(branch.name).includes(key) ||
        inputEnds.includes(loosely(branch.name)) ||
        sameNumbersFewEdits(branch.name));
}

;// CONCATENATED MODULE: ./src/wait/branch-resolver.ts
/*
 * `branch_id` as users write it: a branch id (`br-wild-frost-123456`) or a branch name (`main`,
 * `preview/pr-12`). The gate filters operations by branch id, so a name that matches nothing would
 * make an empty gate that passes at once; the branch is resolved and checked before the first poll.
 * "No such branch" is said only after every branch of the project was read: the project answers,
 * has a branch at all, and none has that id or exactly that name, nor one near it (near-branch.ts:
 * `Preview/PR-12`, `team/preview/pr-12`, `preview/12` for `preview/pr-12`): an input error that
 * names it. A name that looks cut short (`preview/pr-`, a template whose variable was empty), unexpanded
 * (`preview/pr-$MR_IID`, `preview/pr-%CI_MR%`) or made of an empty value (`preview/pr-undefined`)
 * is an input error too: before a delete, "no such branch" would read `gone` and skip the delete
 * of the branch that was meant.
 */




/** Every branch id the API hands out starts with `br-`. */
const BRANCH_ID = /^br-[a-z0-9-]+$/;
/** How many candidates an ambiguity error lists. */
const MAX_LISTED = 5;
/** A branch name (the server's text) an error quotes is cut here. */
const MAX_NAME_CHARS = 80;
const branch_resolver_ACCEPTED = 'give a branch id (br-…) or the exact name of one branch of the project';
/**
 * `branch_id` names no branch of a project that answers and has branches, nor one near it (before
 * a delete, the teardown's goal holds).
 */
class NoSuchBranchError extends InputError {
    name = 'NoSuchBranchError';
}
/** A separator at either end: `preview/pr-${N}` or `${ENV}/pr-12` with N or ENV empty. */
const LOOSE_END = /^[/\\_.\p{Dash}]|[/\\_.\p{Dash}]$/u;
/** A variable a shell, a CI system or a template left as text, not expanded. */
const UNEXPANDED = [
    /\$?\{\{.*?(?:\}\}|$)/u, // an expression or a template: `${{ github.event.number }}`, `{{ .N }}`
    /\$\[\[.*?(?:\]\]|$)/u, // a GitLab CI/CD component input: `$[[ inputs.mr ]]`
    /\$\{.*?(?:\}|$)/u, // `${MR}`
    /\$\(.*?(?:\)|$)/u, // an Azure Pipelines macro: `$(PR)`
    /\$(?:\w+|$)/u, // `$MR`, or a `$` at the end
    /%\w+%/u // cmd.exe, GitLab's Windows runners: `%CI_MR%`
];
/**
 * What a language or a template writes for an empty value: a word at either end of the name
 * (`preview/pr-undefined`; not `fix-null-check`), or a form no name holds (Go's `<no value>`).
 */
const EMPTY_WORD = '(?:undefined|null|None|nil|NaN)';
const EMPTY_VALUE = [
    /<nil>|<no value>|\(null\)|\[object Object\]/u,
    new RegExp(`^${EMPTY_WORD}(?![A-Za-z0-9])|(?<![A-Za-z0-9])${EMPTY_WORD}$`, 'u')
];
/** Why `input` looks unfinished, naming what was found; undefined when it does not. */
function unfinished(input) {
    const name = input.normalize('NFKC');
    const firstMatch = (patterns) => patterns.map((pattern) => pattern.exec(name)?.[0]).find((text) => text !== undefined);
    const variable = firstMatch(UNEXPANDED);
    if (variable !== undefined)
        return `it holds "${variable}", a variable that was not expanded`;
    const empty = firstMatch(EMPTY_VALUE);
    if (empty !== undefined)
        return `it holds "${empty}", what a template writes for an empty value`;
    const end = LOOSE_END.exec(name);
    if (!end)
        return undefined;
    return end.index === 0 ? `it starts with "${end[0]}"` : `it ends in "${end[0]}"`;
}
/**
 * The branch `input` names in `projectId`: an id is read directly (one request); a name, or an input
 * shaped like an id that is no branch's id (a branch may be named `br-hotfix-7`), is searched for
 * across every page of the search and must match exactly one branch's name or id. Throws an
 * InputError naming `branch_id` when it names no branch or several.
 */
async function resolveBranch(reader, projectId, input) {
    if (BRANCH_ID.test(input)) {
        try {
            return await reader.getBranch(projectId, input);
        }
        catch (error) {
            if (!(error instanceof ApiError && error.status === 404))
                throw error;
        }
    }
    // The search and the whole list share one page cap: a name not found costs at most that.
    const budget = { pages: MAX_BRANCH_PAGES };
    const found = exactly(await reader.searchBranches(projectId, input, budget), projectId, input);
    if (found)
        return found;
    if (budget.pages === 0) {
        throw new InputError(({ label }) => `${label('branch_id')}: project "${projectId}" has more branches whose name or id contains "${input}" than ${MAX_BRANCH_PAGES} pages hold, none of those read named so; give the branch id`);
    }
    // No exact match in the search: every branch of the project, which must answer and have some.
    const unseen = `a branch named "${input}" among the others is not seen`;
    const { branches: every, cut } = await reader.listBranches(projectId, { budget, unseen });
    if (every.length === 0) {
        throw new InputError(({ label, mention }) => `${label('project_id')}: project "${projectId}" lists no branch at all, though every project has its root branch; check ${mention('project_id')}`);
    }
    return exactly(every, projectId, input) ?? noSuchBranch(every, projectId, input, cut);
}
/** The one branch with the id or exactly the name `input`; undefined when none; throws for several. */
function exactly(branches, projectId, input) {
    const byId = branches.find((branch) => branch.id === input);
    if (byId)
        return byId;
    const byName = branches.filter((branch) => branch.name === input);
    if (byName.length <= 1)
        return byName[0];
    const listed = byName.slice(0, MAX_LISTED).map((branch) => branch.id);
    if (byName.length > MAX_LISTED)
        listed.push(`and ${byName.length - MAX_LISTED} more`);
    throw new InputError(({ label }) => `${label('branch_id')}: ${byName.length} branches of project "${projectId}" are named "${input}" (${listed.join(', ')}); give the branch id instead`);
}
/**
 * `input` names none of `every` branch read: an input error that names the branches near it, if any,
 * or that says why the name looks unfinished, or, when the list was `cut` short, that the rest was
 * not read (never "no such branch", which before a delete reads `gone`); else NoSuchBranchError.
 */
function noSuchBranch(every, projectId, input, cut) {
    const near = nearBranches(every, input);
    const none = BRANCH_ID.test(input)
        ? `with the id "${input}", and none is named so`
        : `named "${input}"`;
    const why = near.length === 0 ? unfinished(input) : undefined;
    if (why !== undefined) {
        throw new InputError(({ label }) => `${label('branch_id')}: project "${projectId}" has no branch ${none}, and the name looks unfinished (${why}), as a name made from an empty or unexpanded variable does; ${branch_resolver_ACCEPTED}`);
    }
    if (near.length === 0 && cut !== undefined) {
        throw new InputError(({ label }) => `${label('branch_id')}: no branch ${none} among the ${every.length} branches of project "${projectId}" read before the list stopped (${cut}); the others were not read, so give the branch id`);
    }
    if (near.length === 0) {
        throw new NoSuchBranchError(({ label }) => `${label('branch_id')}: project "${projectId}" has no branch ${none}; ${branch_resolver_ACCEPTED}`);
    }
    const listed = near
        .slice(0, MAX_LISTED)
        .map((branch) => `${truncate(branch.name, MAX_NAME_CHARS)} (${branch.id})`);
    if (near.length > MAX_LISTED)
        listed.push(`and ${near.length - MAX_LISTED} more`);
    throw new InputError(({ label }) => `${label('branch_id')}: project "${projectId}" has no branch ${none}, but has ${listed.join(', ')}: names are exact but for spaces around them (case, spaces within, quotes and separators count); give that name or the branch id`);
}

;// CONCATENATED MODULE: ./src/gate/branch-to-gate.ts

/**
 * The branch of the plan's gate (none without `branch_id`, or with `operation_id`); `gone` when it
 * names no branch and the plan's goal then holds, said in the report.
 */
async function branchToGate(plan, projectId, { reader, report, logger }) {
    const { inputs, wait } = plan;
    if (!inputs.branchId || wait.covers === 'operations')
        return undefined;
    let branch;
    try {
        branch = await resolveBranch(reader, projectId, inputs.branchId);
    }
    catch (error) {
        if (!(error instanceof NoSuchBranchError))
            throw error;
        if (plan.branchGone?.(report, logger))
            return 'gone';
        throw error;
    }
    if (!wait.idle) {
        logger.info(`Gating branch ${branch.name} (${branch.id})`);
        return branch;
    }
    const waitingFor = wait.idle.for.charAt(0).toUpperCase() + wait.idle.for.slice(1);
    logger.info(`${waitingFor} of branch ${branch.name} (${branch.id}): waiting until the project is idle`);
    // What the outputs and the summary show of it until the step after the wait reads it again.
    report.branch = branch;
    return branch;
}

;// CONCATENATED MODULE: ./src/domain/input-catalog.ts
/**
 * action.yml's default for an input that refuses an empty value: the runner sets a default only
 * when the workflow does not give the input, so this value, and only it, says "not given".
 */
const NOT_GIVEN = '(not given)';

;// CONCATENATED MODULE: ./src/steps/database/database-probe.ts







/** How long a refused role or password is tried again, in intervals from the first attempt. */
const REFUSED_GRACE_INTERVALS = 3;
function newProbe(target, clock) {
    return {
        outcome: 'pending',
        state: 'unreachable',
        target: { host: target.host, database: target.database, user: target.user },
        attempts: 0,
        afterControlPlaneMs: 0,
        span: { start: clock.wallNow(), end: clock.wallNow() }
    };
}
/** How a probe ends: its outcome and times set, with what the last attempt said. */
function probeEnds(probe, { clock, logger }, { where, startedAt, stepStartedAt }) {
    const end = (outcome) => {
        probe.outcome = outcome;
        probe.afterControlPlaneMs = clock.now() - startedAt;
        probe.span.end = clock.wallNow();
        return probe;
    };
    const timedOut = () => {
        // What the last answered attempt said stays; with none, nothing answered in time.
        probe.failure ??= { state: 'unreachable', retry: 'retry', message: NO_ANSWER_IN_TIME };
        probe.state = probe.failure.state;
        logger.info(`The database ${where}: ${NO_ANSWER_IN_TIME}`);
        return end('timeout');
    };
    const ready = (answer) => {
        Object.assign(probe, { state: 'ready', serverVersion: answer.serverVersion });
        probe.failure = undefined;
        probe.readyMs = clock.now() - stepStartedAt;
        const { serverVersion } = answer;
        const version = serverVersion ? ` (PostgreSQL ${truncate(serverVersion, 40)})` : '';
        logger.info(`The database answered${version}, attempt ${probe.attempts}`);
        return end('success');
    };
    return { end, timedOut, ready };
}
async function probeDatabase(target, options, dependencies) {
    const { clock, logger, pace, signal } = dependencies;
    const startedAt = clock.now();
    const where = `${target.database} on ${target.host} as ${target.user}`;
    const probe = newProbe(target, clock);
    const { stepStartedAt } = options;
    const { end, timedOut, ready } = probeEnds(probe, dependencies, {
        where,
        startedAt,
        stepStartedAt
    });
    logger.info(`Querying the database ${where}`);
    for (;;) {
        if (clock.now() >= options.deadline)
            return timedOut();
        probe.attempts++;
        const verdict = await judgedAttempt(target, options, dependencies);
        if (verdict === 'cancelled')
            return end('cancelled');
        if (verdict === 'timeout')
            return timedOut();
        if ('ready' in verdict)
            return ready(verdict.ready);
        const { failure } = verdict;
        Object.assign(probe, { state: failure.state, failure });
        const graceOver = failure.retry === 'grace' &&
            clock.now() - startedAt >= REFUSED_GRACE_INTERVALS * options.intervalMs;
        const why = `${failure.code ? `${failure.code} ` : ''}"${truncate(failure.message, 300)}"`;
        if (failure.retry === 'stop' || graceOver) {
            logger.info(`The database ${where}: ${why}; no retry can change that`);
            return end('failure');
        }
        if (!options.wait)
            return end('pending');
        const remaining = options.deadline - clock.now();
        if (remaining <= 0)
            return timedOut();
        const delay = Math.min(pace.nextPollDelayMs(), remaining);
        logger.info(`The database ${where}: ${why}; trying again in ${formatDuration(delay)}`);
        try {
            await clock.sleep(delay, signal);
        }
        catch {
            return end('cancelled');
        }
    }
}
async function judgedAttempt(target, options, dependencies) {
    try {
        const answer = await attempt(target, options, dependencies);
        // An answer that came with the deadline's own tick is as late as one cut by it.
        if (dependencies.clock.now() > options.deadline)
            return 'timeout';
        const wrong = wrongAnswer(answer);
        if (!wrong)
            return { ready: answer };
        const message = phraseText(['SELECT 1 answered ', ...wrong, ', not 1']);
        return { failure: { state: 'error', retry: 'stop', message, answer: wrong } };
    }
    catch (error) {
        if (dependencies.signal.aborted)
            return 'cancelled';
        if (error instanceof DeadlineExceededError)
            return 'timeout';
        return { failure: classifyDatabaseError(error) };
    }
}
const NO_ANSWER_IN_TIME = 'no answer before the timeout ran out';
/**
 * One connection and query, every phase of it within one time limit: the request time limit, or
 * what is left of the deadline, whichever ends first. Cut at the deadline, it rejects with
 * DeadlineExceededError: nothing answered after the deadline counts.
 */
async function attempt(target, options, { clock, signal, query }) {
    const leftMs = options.deadline - clock.now();
    const limitMs = requestTimeLimitMs(options.intervalMs);
    const cutBy = () => leftMs <= limitMs
        ? new DeadlineExceededError()
        : new Error(`no answer within ${formatDuration(limitMs)}`);
    return (0,domain_clock/* withinTime */.dn)(clock, Math.min(limitMs, leftMs), cutBy, (cut) => query(target, cut), signal);
}

;// CONCATENATED MODULE: ./src/steps/database/database-words.ts
/*
 * What the report says of the database probe, once: that a query answered (after how many attempts,
 * how long after the control plane was done, which server), or why none did.
 */


/** `the database app on ep-1.neon.tech answered after 2 attempts, 4.1 s after the control plane …` */
function databasePhrase(probe) {
    const { target, failure } = probe;
    const where = ['the database ', { code: target.database }, ' on ', { code: target.host }];
    if (probe.state === 'ready') {
        const version = probe.serverVersion
            ? [' (PostgreSQL ', { code: probe.serverVersion }, ')']
            : [];
        return [
            ...where,
            ` answered after ${plural(probe.attempts, 'attempt')}, ${formatDuration(probe.afterControlPlaneMs)} after the control plane was done`,
            ...version
        ];
    }
    if (failure?.answer) {
        return [...where, ' answered ', { code: 'SELECT 1' }, ' with ', ...failure.answer, ', not 1'];
    }
    const cause = failure
        ? [...(failure.code ? [{ code: failure.code }, ' '] : []), { quote: failure.message }]
        : [];
    switch (probe.state) {
        case 'refused':
            return [...where, ' refused the role ', { code: target.user }, ' or its password: ', ...cause];
        case 'unreachable':
            // Cancelled during the first attempt, nothing is known of why: no colon before nothing.
            return [...where, ' did not answer', ...(failure ? [': ', ...cause] : [])];
        default:
            return [...where, ' answered with an error: ', ...cause];
    }
}

;// CONCATENATED MODULE: ./src/steps/database/database-section.ts
/*
 * The database check's section of the report: the first line and the error line when no query
 * answered, why the database was not tried, its outputs, its task in the timeline and its
 * annotation.
 */



/** The probe, when it is what the gate ended on: it ran and no query answered. */
function databaseFailed(probe) {
    return probe !== undefined && probe.state !== 'ready';
}
/**
 * Why the database was not tried, when the gate was to end with a query and never got that far;
 * undefined when it was tried or not asked for.
 */
function databaseNotTried(report) {
    if (!report.databaseRequested || report.database)
        return undefined;
    switch (report.outcome) {
        case 'failure':
            return 'an operation failed';
        case 'timeout':
            return 'the timeout ran out before the control plane was done';
        case 'cancelled':
            return 'the job was cancelled before the control plane was done';
        case 'pending':
            return 'the gate read once without waiting, and the control plane was not done at that read';
        default:
            return 'the error above came first';
    }
}
/** The error line when no query answered: how the wait for one ended, and why. */
function databaseErrorLine({ database, outcome }) {
    if (!databaseFailed(database))
        return undefined;
    const cut = outcome === 'timeout'
        ? 'timeout ran out'
        : outcome === 'cancelled'
            ? 'The wait was cancelled'
            : 'No query answered';
    return `${cut}: ${phraseText(databasePhrase(database))}`;
}
/** The probe, from the control plane being done to the query's answer or the last attempt. */
function databaseTask(probe) {
    return {
        section: 'database',
        name: `${probe.target.database} ${probe.state}`,
        ended: probe.outcome === 'success'
            ? 'success'
            : probe.outcome === 'failure'
                ? 'failure'
                : 'in_flight',
        start: probe.span.start,
        end: probe.span.end
    };
}
const DATABASE_SECTION = {
    phase: 'after-wait',
    outcomeLine: ({ database }) => (databaseFailed(database) ? databasePhrase(database) : undefined),
    successLine: ({ database }) => database && databasePhrase(database),
    errorLine: databaseErrorLine,
    underOutcome: (format, report) => {
        const notTried = databaseNotTried(report);
        return notTried ? [format.paragraph(`The database was not tried: ${notTried}.`)] : [];
    },
    outputs: ({ database }) => database
        ? {
            values: {
                database_state: database.state,
                database_ready_ms: database.readyMs !== undefined ? Math.round(database.readyMs) : undefined
            }
        }
        : undefined,
    timelineTask: ({ database }) => database && databaseTask(database),
    annotation: (report, errorLine) => databaseFailed(report.database)
        ? {
            annotation: {
                title: `database ${report.database.state}`,
                message: truncate(errorLine, 1000)
            },
            alone: false
        }
        : undefined
};

;// CONCATENATED MODULE: ./src/steps/database/database-step.ts
/*
 * The database check (`database_url`): once the control plane is done, a query must answer
 * (database-probe.ts, one attempt in postgres.ts); its input is read here against
 * database-target.ts, its words are database-words.ts, and its section of the report is
 * database-section.ts.
 */







/** Where to connect, checked before any request. */
const databaseUrlInput = schemas_string().transform((raw, ctx) => {
    const target = parseDatabaseUrl(raw.trim());
    if (typeof target !== 'string')
        return target;
    ctx.addIssue({ code: 'custom', message: target });
    return NEVER;
});
/** Its input in the catalog: `database_url`. */
const DATABASE_INPUTS = {
    database_url: {
        typed: 'database',
        schema: (naming) => refusingEmpty(databaseUrlInput, `leave ${naming.mention('database_url')} out for no database check`),
        refusesEmpty: true,
        secret: 'database_url',
        command: { flag: { name: 'database-url', gate: true }, file: 'database-url-file' },
        help: {
            part: 'what',
            flags: [
                ['--database-url URL', 'then connect and run SELECT 1 (a secret: prefer the file)'],
                ['--database-url-file PATH', 'the database URL from a file (- reads standard input)']
            ]
        },
        docs: {
            default: NOT_GIVEN,
            summary: 'Postgres URL: the gate ends with a query that answered',
            description: 'Optional, a secret: a Postgres connection string (the db_url output of create-branch-action). Once the control plane is done, the gate passes only when SELECT 1 answers 1 on it, as that role, before timeout. TLS with a verified certificate unless sslmode=disable, which is allowed only to loopback hosts (localhost, 127.x.x.x as four decimal octets, [::1]). Masked, with its password. An unexpanded variable ($DATABASE_URL, ${DATABASE_URL}) fails the step. Its default, (not given), means left out.'
        }
    }
};
const DATABASE_STEP = {
    section: DATABASE_SECTION,
    help: { ends: [['failure', 'the database check failed']] },
    // After a success the wait says that the control plane is done: the check may still fail.
    plan: (draft) => draft.inputs.database === undefined
        ? undefined
        : {
            ...draft,
            wait: { ...draft.wait, next: 'control plane done; the database check comes next' }
        },
    start: (inputs, report) => {
        report.databaseRequested = inputs.database !== undefined && inputs.projectId !== undefined;
    },
    run: async (inputs, report, context) => {
        if (!inputs.database)
            return;
        const { clock, logger, stepStartedAt, deadline } = context;
        const probeOptions = {
            wait: inputs.wait,
            deadline,
            intervalMs: inputs.intervalMs,
            stepStartedAt
        };
        report.database = await probeDatabase(inputs.database, probeOptions, {
            ...context,
            query: context.queryDatabase
        });
        report.outcome = report.database.outcome;
        logger.info(`[+${formatDuration(clock.now() - stepStartedAt)}] outcome: ${report.outcome}`);
    }
};

;// CONCATENATED MODULE: ./src/domain/api-time.ts
/**
 * The API's timestamps as its OpenAPI document types them (`date-time`, RFC 3339). `Date.parse`
 * alone also reads text such as "garbage 1" (as 2001) or "1": only this shape is a time.
 */
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/**
 * An API timestamp (RFC 3339, wall clock) as epoch milliseconds; undefined when it is absent or
 * cannot be read. The one parse of an operation's, a branch's or a compute's times.
 */
function apiTime(text) {
    if (!text || !RFC_3339.test(text))
        return undefined;
    const time = Date.parse(text);
    return Number.isNaN(time) ? undefined : time;
}
/** Whether the operation was created before `time`; false when its time cannot be read. */
function createdBefore(operation, time) {
    const created = apiTime(operation?.created_at);
    return created !== undefined && created < time;
}
/**
 * The operations of a list's first page that nothing the list hides can be newer than: those
 * created strictly after its last one. The next page's cursor is the last one's time, and that page
 * holds only older operations, so one tied with it may be on neither page (on a page it ends).
 */
function newerThanPageEnd(page) {
    const end = apiTime(page.at(-1)?.created_at);
    if (end === undefined)
        return [];
    return page.filter((operation) => (apiTime(operation.created_at) ?? end) > end);
}

;// CONCATENATED MODULE: ./src/domain/operation-status.ts
const CLASSES = new Map([
    ['finished', 'success'],
    ['skipped', 'success'],
    ['cancelled', 'failure'],
    // Not in the spec, but the live API sends it.
    ['error', 'failure'],
    // The control plane retries a failed operation, so it is not final.
    ['failed', 'retrying'],
    ['scheduling', 'in_flight'],
    ['running', 'in_flight'],
    ['cancelling', 'in_flight']
]);
function classifyStatus(status) {
    return CLASSES.get(status) ?? 'unknown';
}
/** Whether the wait is over for an operation in this status. */
function isFinal(status, failFast) {
    const statusClass = classifyStatus(status);
    return (statusClass === 'success' ||
        statusClass === 'failure' ||
        (failFast && statusClass === 'retrying'));
}
/** Finished or skipped: nothing more to wait for, and nothing went wrong. */
function succeeded(status) {
    return classifyStatus(status) === 'success';
}
/** Neither succeeded nor failed for good: in flight, retrying (`failed`) or of unknown status. */
function isUnfinished(status) {
    const statusClass = classifyStatus(status);
    return statusClass !== 'success' && statusClass !== 'failure';
}
function isFinalFailure(status, failFast) {
    const statusClass = classifyStatus(status);
    return statusClass === 'failure' || (failFast && statusClass === 'retrying');
}
const LABELS = new Map([
    ['finished', '✅ Finished'],
    ['skipped', '⏭️ Skipped'],
    ['cancelled', '🚫 Cancelled'],
    ['error', '❌ Error'],
    ['failed', '🔁 Failed (retrying)'],
    ['scheduling', '🕒 Scheduling'],
    ['running', '⏳ Running'],
    ['cancelling', '⏹️ Cancelling']
]);
function finalityOf(failFast) {
    return {
        isDone: (operation) => isFinal(operation.status, failFast),
        hasFailed: (operation) => isFinalFailure(operation.status, failFast)
    };
}
function statusLabel(status) {
    return LABELS.get(status) ?? `❔ ${status}`;
}

;// CONCATENATED MODULE: ./src/report/report-format.ts
/*
 * How the report is written down: as HTML for the job summary and the pull-request comment (API
 * text escaped, Markdown kept out), and as plain text for the command's standard output (API text
 * made safe for a terminal and a CI log, no Markdown). The report itself (summary.ts) says what is
 * there once; a format only decides how each part looks.
 */




const MAX_ID_CHARS = 80;
const MAX_TEXT_CHARS = 120;
/** `2026-11-25 11:21:23 UTC`, or the API's text when it is no time. */
function formatDate(format, iso) {
    if (!iso)
        return '';
    const time = apiTime(iso);
    if (time === undefined)
        return format.text(iso);
    return new Date(time)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
}
const HTML_FORMAT = {
    code: (text) => (text ? `<code>${forHtml(text, MAX_ID_CHARS)}</code>` : ''),
    text: (value, maxChars = MAX_TEXT_CHARS) => forHtml(value ?? '', maxChars),
    phrase: phraseHtml,
    status: (status, suffix) => forHtml(statusLabel(status) + suffix, MAX_TEXT_CHARS),
    paragraph: (line) => `<p>${line}</p>`,
    heading: (title, level) => `<h${level}>${title}</h${level}>`,
    strong: (text) => `<b>${text}</b>`,
    below: (first, second) => `${first}<br>${second}`,
    chart: (mermaid) => `\n\`\`\`mermaid\n${mermaid}\n\`\`\`\n`,
    table: (headers, rows, more) => {
        const head = headers.map((header) => `<th>${header}</th>`).join('');
        const body = rows.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`);
        if (more)
            body.push(`<tr><td colspan="${headers.length}">${more}</td></tr>`);
        return `<table>\n<tr>${head}</tr>\n${body.join('\n')}\n</table>`;
    },
    join: (parts) => parts.join('\n') + '\n'
};
/** API text for a line of plain text: cut, and no control character or runner command left. */
function plain(value, maxChars) {
    return forLog(truncate(value ?? '', maxChars));
}
/** Columns padded to their widest cell; a cell's second part (`below`) on a line of its own. */
function textTable(headers, rows, more) {
    const split = rows.map((cells) => cells.map((cell) => cell.split('\n')));
    const widths = headers.map((header, column) => Math.max(header.length, ...split.map((cells) => cells[column][0].length)));
    const line = (cells) => cells
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd();
    const lines = [line(headers.map((header) => header.toUpperCase()))];
    for (const cells of split) {
        lines.push(line(cells.map((parts) => parts[0])));
        for (const parts of cells)
            for (const rest of parts.slice(1))
                lines.push(`    ${rest}`);
    }
    if (more)
        lines.push(more);
    return lines.join('\n');
}
const report_format_TEXT_FORMAT = {
    code: (text) => (text ? plain(text, MAX_ID_CHARS) : ''),
    text: (value, maxChars = MAX_TEXT_CHARS) => plain(value, maxChars),
    phrase: (phrase) => forLog(phraseText(phrase)),
    status: (status, suffix) => plain(status, 40) + suffix,
    paragraph: (line) => line,
    // The command's report starts with its headline: no title above it.
    heading: (title, level) => (level === 2 ? '' : `\n${title}`),
    strong: (text) => text,
    // Our own mark between the parts; API text holds no line break once `plain` has made it safe.
    below: (first, second) => `${first}\n${second}`,
    chart: () => undefined,
    table: textTable,
    join: (parts) => parts.filter((part) => part !== '').join('\n') + '\n'
};

;// CONCATENATED MODULE: ./src/wait/recent-failures.ts
/*
 * What ended in failure just before the project gate started. A step that creates a branch returns
 * as soon as the API accepts it, and the branch's operations can fail within seconds, before the
 * gate's first read: a gate that only waits for what is still in flight would pass over them.
 */





/**
 * How long before the gate started a failure on the whole project is still worth a warning: that
 * gate answers whether the project is idle, so what failed earlier is no news to it. The branch
 * gate has no such window: its verdict comes from the state, whenever it is asked.
 */
const PROJECT_WARNING_WINDOW_MS = 15 * 60 * 1000;
/** Recent failures warned about one by one; the rest are counted (the summary lists them all). */
const MAX_RECENT_FAILURE_WARNINGS = 5;
/**
 * The operations of the first read that concern the gate, whatever their age, in the list's order (newest first, as the API lists them: the order, not
 * `created_at`, says which is newer, so an operation whose time cannot be read is never taken for
 * the newest).
 */
class RecentOperations {
    startedAt;
    windowStart;
    /**
     * Every one by id, newest first: an operation repeated across a page boundary counts once, where
     * it was first listed.
     */
    listed = new Map();
    /**
     * The same by compute (any action on it), or by action on the branch for an action without a
     * compute; an operation without a branch, or with neither an action nor a compute, stands alone.
     */
    byTarget = new Map();
    /** An operation older than the window was listed: what follows it without a time is older too. */
    pastWindow = false;
    /** `startedAt`: when the gate started, the earliest the clocks allow (`earliestWallNow`). */
    constructor(startedAt) {
        this.startedAt = startedAt;
        this.windowStart = startedAt - PROJECT_WARNING_WINDOW_MS;
    }
    /** The next operation of the list (one that concerns the gate). */
    add(operation) {
        if (this.listed.has(operation.id))
            return;
        const created = apiTime(operation.created_at);
        if ((created ?? Infinity) < this.windowStart)
            this.pastWindow = true;
        const recent = created === undefined ? !this.pastWindow : created >= this.windowStart;
        const listed = { operation, recent };
        this.listed.set(operation.id, listed);
        const key = targetOf(operation);
        const ofTarget = this.byTarget.get(key);
        if (ofTarget)
            ofTarget.push(listed);
        else
            this.byTarget.set(key, [listed]);
    }
    /**
     * For each compute (and each action without one), the failures nothing newer has superseded.
     * Only a newer success (`finished`, `skipped`) of the same action there supersedes one, or, on a
     * compute, a newer successful `start_compute` (the compute runs): a newer `suspend_compute`,
     * `check_availability` or `cancelled` proves neither. One that could supersede it but is still in
     * flight decides once it ends (the gate waits on it). With `branchGated`, an `error` fails the gate
     * whatever its age, and a `cancelled` is a warning; on the whole project (or until it is idle)
     * only those created in the 15 minutes before the gate started are reported, as warnings. In the
     * list's order, newest first: two with the same `created_at` are as the list gives them. With
     * `clocksDisagree` (the runner's and the API's), each age is only a least.
     */
    failures(branchGated, clocksDisagree = false) {
        const found = new Map();
        for (const ofTarget of this.byTarget.values()) {
            const newer = new Newer();
            for (const listed of ofTarget) {
                const { operation, recent } = listed;
                const reported = (branchGated || recent) &&
                    classifyStatus(operation.status) === 'failure' &&
                    !newer.supersedes(operation);
                if (reported) {
                    const failsGate = branchGated && operation.status === 'error';
                    const endedAgoMs = endedAgo(operation, this.startedAt);
                    const least = clocksDisagree ? { atLeast: true } : {};
                    found.set(listed, { operation, failsGate, endedAgoMs, ...least });
                }
                newer.add(operation);
            }
        }
        return [...this.listed.values()].flatMap((listed) => found.get(listed) ?? []);
    }
}
/** The action that supersedes a failure of any action on a compute, when it succeeds. */
const START = 'start_compute';
/**
 * What is newer on one target (a compute, or an action on a branch) than the operation at hand: the
 * actions that did not fail there, those that succeeded and those still in flight (they may yet
 * succeed). Either kind supersedes alike.
 */
class Newer {
    notFailed = new Set();
    add({ action, status }) {
        if (classifyStatus(status) !== 'failure')
            this.notFailed.add(action);
    }
    /** Whether a newer success supersedes `operation`, or one in flight may yet. */
    supersedes({ action, endpoint_id: compute }) {
        return this.notFailed.has(action) || (!!compute && this.notFailed.has(START));
    }
}
/** What an operation acts on: its compute, else its action on its branch, else itself alone. */
function targetOf({ id, branch_id: branch, action, endpoint_id: compute }) {
    // A replica's start is not the read-write compute's: the same target means the same compute.
    if (branch && compute)
        return JSON.stringify([branch, 'compute', compute]);
    if (branch && action)
        return JSON.stringify([branch, 'action', action]);
    return `#${id}`;
}
/** How long before `startedAt` it ended: its last update, else its creation; 0 if after. */
function endedAgo(operation, startedAt) {
    const ended = apiTime(operation.updated_at) ?? apiTime(operation.created_at);
    return ended === undefined ? undefined : Math.max(0, startedAt - ended);
}
/**
 * One warning for each failure that does not fail the gate (the first few, then a count); on a
 * project waited for until idle, none does, and `failuresWhy` says why.
 */
function warnRecentFailures(failures, logger, failuresWhy) {
    const warned = failures.filter((failure) => !failure.failsGate);
    for (const { operation, endedAgoMs, atLeast } of warned.slice(0, MAX_RECENT_FAILURE_WARNINGS)) {
        const action = truncate(operation.action ?? 'operation', 80);
        const branch = truncate(operation.branch_id ?? 'its branch', 80);
        const error = operation.error ? `: "${truncate(operation.error, 300)}"` : '';
        const gated = failuresWhy ??
            (operation.status === 'cancelled'
                ? 'a cancelled operation does not fail the gate'
                : 'the project gate does not fail on it; gate on its branch to fail on it');
        logger.warning(`Ended in failure before the gate started: ${action} ${operation.id} on ${branch}, ${truncate(operation.status, 40)} ${endedBeforePhrase(endedAgoMs, atLeast)}${error}; ${gated}`);
    }
    if (warned.length > MAX_RECENT_FAILURE_WARNINGS) {
        logger.warning(`… and ${plural(warned.length - MAX_RECENT_FAILURE_WARNINGS, 'more operation')} ended in failure before the gate started; the summary lists them`);
    }
}
/**
 * `25.0 s before the gate started`, `at least 25.0 s before …` where the clocks disagree, or `as the
 * gate started` (also when no time is readable).
 */
function endedBeforePhrase(endedAgoMs, atLeast) {
    if (!endedAgoMs)
        return 'as the gate started';
    return `${atLeast ? 'at least ' : ''}${formatDuration(endedAgoMs)} before the gate started`;
}

;// CONCATENATED MODULE: ./src/report/report.ts




/**
 * The operations as far as the run saw them, or undefined when nothing could be read (an error,
 * the timeout or a cancellation before the first answer): then nobody may say "nothing in flight".
 */
function seenOperations(report) {
    const { wait } = report;
    if (wait && (wait.observed || wait.operations.length > 0))
        return wait.operations;
    return undefined;
}
/**
 * The operation the single-operation outputs describe: the first one (output order) that ended in a
 * final failure (under `failFast`, `failed` too), so that a failure is never described by an
 * operation still running beside it; else the first that did not finish; else the first one.
 */
function primaryOperation(operations, failFast) {
    return (operations.find((operation) => isFinalFailure(operation.status, failFast)) ??
        operations.find((operation) => operation.status !== 'finished') ??
        operations[0]);
}
/**
 * How long an operation has taken. Unfinished, with the time it was last read (wall clock): from
 * `created_at` to that read, "so far" (its `total_duration_ms` is 0 or absent then, not its running
 * time). Where the clocks disagreed, that read time is the earliest both allow (WaitResult's
 * `clocksDisagree`), and the duration only a least, never less than its own `updated_at` shows.
 * Finished: `total_duration_ms` when the API gives it, else updated_at − created_at.
 */
function operationDuration(operation, readAt, clocksDisagree) {
    const created = apiTime(operation.created_at);
    const updated = apiTime(operation.updated_at);
    if (isUnfinished(operation.status) && readAt !== undefined && created !== undefined) {
        const ms = Math.max(0, readAt - created);
        if (!clocksDisagree)
            return { ms, soFar: true };
        return { ms: Math.max(ms, (updated ?? created) - created), soFar: true, atLeast: true };
    }
    if (operation.total_duration_ms != null)
        return { ms: operation.total_duration_ms, soFar: false };
    if (created === undefined || updated === undefined)
        return undefined;
    return { ms: Math.max(0, updated - created), soFar: false };
}
/** `7.1 s so far`, `at least 5.0 s so far`, `4.1 s`: a duration as worded everywhere. */
function durationWords({ ms, soFar, atLeast }) {
    return `${atLeast ? 'at least ' : ''}${formatDuration(ms)}${soFar ? ' so far' : ''}`;
}
/**
 * A timeout after which nothing was ever read from the API: `the API never answered` (every request
 * refused, dropped or unanswered), or `the API never gave a usable answer` (it answered, but with
 * errors or what could not be read). Undefined when something was read, or no request was made: a
 * timeout on work still in flight says what it waited for instead.
 */
function apiSilence({ outcome, requests }) {
    if (outcome !== 'timeout' || requests.read !== 0 || requests.requests === 0)
        return undefined;
    return requests.answered === 0 ? 'the API never answered' : 'the API never gave a usable answer';
}
/** Why nothing could be read; the reason itself is quoted beside it. */
function nothingRead(report) {
    const silence = apiSilence(report);
    switch (report.outcome) {
        case 'timeout':
            return `${silence ? phraseText(capitalized([silence])) : 'Nothing could be read'} before ${report.noRetryFits ? 'the gate gave up' : 'the timeout ran out'}`;
        case 'cancelled':
            return 'Nothing could be read before the job was cancelled';
        default:
            return 'Nothing could be read before the error';
    }
}

;// CONCATENATED MODULE: ./src/report/operation-facts.ts
/*
 * What a report tells about its operations, sorted by what they mean for the outcome, and the
 * phrases that name them (`start_compute on br-7 ended in error: "…"`), for the first line, the
 * error line and the annotations.
 */



/** How many operations a line names; the table has them all. */
const NAMED_IN_LINE = 3;
/** `start_compute on br-preview-7` */
function actionOnBranch(operation) {
    return [
        { code: operation.action ?? 'operation' },
        ' on ',
        { code: operation.branch_id ?? 'its branch' }
    ];
}
/**
 * `start_compute on br-preview-7 ended in error after 4.1 s: "out of capacity"`, and `20 min
 * before the gate started` when the first read found it so. One that has not ended (`failed`,
 * which the API retries, a failure under fail_fast) is said as such: `…, failed for 7.1 s so far`.
 */
function failedClause(operation, facts) {
    const duration = durationOf(operation, facts);
    const before = facts.endedBeforeStart.get(operation.id);
    const ended = !isUnfinished(operation.status);
    return [
        ...actionOnBranch(operation),
        ended ? ' ended in ' : ', ',
        { code: operation.status },
        duration ? ` ${ended ? 'after' : 'for'} ${durationWords(duration)}` : '',
        before ? `, ${endedBeforePhrase(before.endedAgoMs, before.atLeast)}` : '',
        ...(operation.error ? [': ', { quote: operation.error }] : [])
    ];
}
/** `apply_config on br-main-1, running for 7.1 s so far` */
function inFlightClause(operation, facts) {
    const duration = durationOf(operation, facts);
    return [
        ...actionOnBranch(operation),
        ', ',
        { code: operation.status },
        duration ? ` for ${durationWords(duration)}` : ''
    ];
}
/** How long an operation has taken, as far as the run read it. */
function durationOf(operation, facts) {
    return operationDuration(operation, facts.readAt.get(operation.id), facts.clocksDisagree);
}
/** The first few clauses joined, and how many more the table holds. */
function listed(operations, clause, withIds) {
    const phrase = [];
    operations.slice(0, NAMED_IN_LINE).forEach((operation, index) => {
        if (index > 0)
            phrase.push('; ');
        if (withIds)
            phrase.push({ code: operation.id }, ' (', ...clause(operation), ')');
        else
            phrase.push(...clause(operation));
    });
    if (operations.length > NAMED_IN_LINE) {
        phrase.push(`; and ${operations.length - NAMED_IN_LINE} more`);
    }
    return phrase;
}
function operation_facts_operationFacts(report) {
    const failFast = report.failFast ?? false;
    const seen = seenOperations(report);
    const failed = (seen ?? []).filter((operation) => isFinalFailure(operation.status, failFast));
    const inFlight = (seen ?? []).filter((operation) => !succeeded(operation.status) && !failed.includes(operation));
    const endedBeforeStart = new Map((report.recentFailures ?? [])
        .filter((failure) => failure.failsGate)
        .map((failure) => [failure.operation.id, failure]));
    const readAt = report.wait?.readAt ?? new Map();
    const clocks = report.wait?.clocksDisagree ? { clocksDisagree: true } : {};
    return { seen, failed, inFlight, readAt, ...clocks, endedBeforeStart };
}
/** The failed operations, the first few named: `start_compute on br-7 ended in error: "…"` */
function failedList(facts, withIds = false) {
    return listed(facts.failed, (operation) => failedClause(operation, facts), withIds);
}
/** The unfinished operations, the first few named: `apply_config on br-1, running for 7 s so far` */
function inFlightList(facts, withIds = false) {
    return listed(facts.inFlight, (operation) => inFlightClause(operation, facts), withIds);
}
/** `1 still in flight: apply_config on br-main-1, running for 7.1 s so far` */
function inFlightPhrase(facts, withIds = false) {
    return [`${facts.inFlight.length} still in flight: `, ...inFlightList(facts, withIds)];
}

;// CONCATENATED MODULE: ./src/report/section.ts
/** The first part a section gives, in the steps' order. */
function firstOf(sections, part) {
    for (const section of sections) {
        const found = part(section);
        if (found !== undefined)
            return found;
    }
    return undefined;
}

;// CONCATENATED MODULE: ./src/report/timeline.ts


/** More operations than this and the chart would be unreadable: the table alone is shown. */
const MAX_TIMELINE_TASKS = 30;
const timeline_MAX_NAME_CHARS = 40;
/** A task shorter than this would be drawn with no width. */
const MIN_TASK_MS = 1000;
/**
 * Mermaid accepts few characters in a task or section name (`:` separates the task's fields, `#`
 * and `;` start comments and statements); API text keeps only letters, digits and `_ .-`.
 */
function mermaidName(text) {
    const safe = text.replace(/[^A-Za-z0-9_.\- ]/g, '_').trim();
    return safe.slice(0, timeline_MAX_NAME_CHARS).trim() || '_';
}
const TAGS = {
    success: 'done, ',
    failure: 'crit, ',
    retrying: 'crit, active, ',
    in_flight: 'active, ',
    unknown: 'active, '
};
/** Ticks on the axis at most; the step is the smallest of TICK_STEPS that keeps within it. */
const MAX_TICKS = 8;
/** A span that even the longest step would cover with more ticks than this is not drawn. */
const MAX_TICKS_AT_LONGEST_STEP = 12;
const MONTH_MS = 30.44 * 86_400_000;
/**
 * Tick steps Mermaid accepts (`tickInterval`), with an axis format that names each tick once: a
 * step of seconds shows seconds, of minutes or hours the minute, of days the day, of months the
 * month, of a year the year. d3 puts ticks on whole multiples of the step within the next larger
 * unit (a month's step counts months within the year), so two ticks never share a label at that
 * precision, and no step is longer than a year.
 */
const TICK_STEPS = [
    ...[1, 2, 5, 10, 15, 30].map((n) => ({ ms: n * 1000, tick: `${n}second`, format: '%H:%M:%S' })),
    ...[1, 2, 5, 10, 15, 30].map((n) => ({ ms: n * 60_000, tick: `${n}minute`, format: '%H:%M' })),
    ...[1, 2, 3, 6, 12].map((n) => ({ ms: n * 3_600_000, tick: `${n}hour`, format: '%H:%M' })),
    ...[1, 2, 7, 14].map((n) => ({ ms: n * 86_400_000, tick: `${n}day`, format: '%b %d' })),
    ...[1, 2, 3, 6].map((n) => ({ ms: n * MONTH_MS, tick: `${n}month`, format: '%b %Y' })),
    { ms: 12 * MONTH_MS, tick: '12month', format: '%Y' }
];
const LONGEST_STEP = TICK_STEPS.at(-1);
/**
 * The axis for a chart spanning `spanMs`: `tickInterval` and `axisFormat`; undefined for a span of
 * more than about 12 years, which no step Mermaid has can mark with few ticks.
 */
function axisFor(spanMs) {
    if (spanMs / LONGEST_STEP.ms > MAX_TICKS_AT_LONGEST_STEP)
        return undefined;
    const step = TICK_STEPS.find((candidate) => spanMs / candidate.ms <= MAX_TICKS) ?? LONGEST_STEP;
    // A span of a day or more shows the day beside the time, or 23:00 and 01:00 would repeat.
    const format = spanMs >= 86_400_000 && step.format === '%H:%M' ? '%b %d %H:%M' : step.format;
    return { tick: step.tick, format };
}
/** Room on the left for the section names (Mermaid's default, 75 px, fits about 10 characters). */
function leftPadding(sections) {
    const longest = Math.max(...sections.map((section) => section.length));
    return Math.min(320, Math.max(75, Math.round(longest * 7 + 16)));
}
/** The operation's bar; undefined when its `created_at` cannot be read (nothing to draw). */
function operationTask(operation, readAt) {
    const start = apiTime(operation.created_at);
    if (start === undefined)
        return undefined;
    const lastRead = isUnfinished(operation.status) ? readAt.get(operation.id) : undefined;
    const lastKnown = lastRead ?? apiTime(operation.updated_at) ?? start;
    return {
        section: operation.action ?? 'operation',
        name: `${operation.branch_id ?? operation.id.slice(0, 8)} ${operation.status}`,
        tag: TAGS[classifyStatus(operation.status)],
        start,
        end: lastKnown
    };
}
/**
 * The operations as a Mermaid gantt chart, from `created_at` to the last update, one section per
 * action, marked by status (done, active, crit), and a step's task after them. An operation
 * that has not finished runs to the time it was last read (`readAt`, wall clock), not to its last
 * update. Undefined when there is nothing to draw or too much to read, operations or years (the
 * table says it all then).
 */
function renderTimeline(operations, readAt = new Map(), after) {
    const tasks = [...operations]
        .reverse()
        .flatMap((operation) => operationTask(operation, readAt) ?? []);
    if (tasks.length === 0 || tasks.length > MAX_TIMELINE_TASKS)
        return undefined;
    if (after)
        tasks.push({ ...after, tag: TAGS[after.ended] });
    const bySection = new Map();
    let first = Infinity;
    let last = -Infinity;
    for (const task of tasks) {
        const end = Math.max(task.end, task.start + MIN_TASK_MS);
        first = Math.min(first, task.start);
        last = Math.max(last, end);
        // The fixed prefix keeps a name such as `section` or `click` from being read as a statement.
        const section = mermaidName(task.section);
        const lines = bySection.get(section) ?? [];
        lines.push(`    ▸ ${mermaidName(task.name)} :${task.tag}${task.start}, ${end}`);
        bySection.set(section, lines);
    }
    const axis = axisFor(last - first);
    if (!axis)
        return undefined;
    const lines = [
        'gantt',
        `    %%{init: {"gantt": {"leftPadding": ${leftPadding([...bySection.keys()])}}}}%%`,
        '    dateFormat x',
        `    axisFormat ${axis.format}`,
        `    tickInterval ${axis.tick}`
    ];
    for (const [section, sectionTasks] of bySection)
        lines.push(`    section ${section}`, ...sectionTasks);
    return lines.join('\n');
}

;// CONCATENATED MODULE: ./src/report/operations-section.ts
/*
 * The summary's part on the operations: the timeline and the table of what was read, and what had
 * ended in failure before the gate started.
 */






const MAX_ERROR_CHARS = 500;
/** A table of the first `maxRows` rows, with a last row saying how many more there are. */
function limitedTable(format, headers, items, { maxRows, what }, cells) {
    const more = items.length - maxRows;
    const left = more > 0 ? `… and ${more} more ${what} not shown` : undefined;
    return format.table(headers, items.slice(0, maxRows).map(cells), left);
}
/** What was read of the operations: the timeline and the table, or why there is none. */
function operationsSection(sections, format, report, facts, limits) {
    const operations = facts.seen;
    if (operations === undefined) {
        // A success with nothing read: the plan's goal held before the wait (a branch already gone).
        // A plan without a wait (a sweep) reads no operation: nothing of them to say.
        return report.projectId && report.waitPlan && report.outcome !== 'success'
            ? [format.paragraph(`${nothingRead(report)}: the state of the operations is unknown.`)]
            : [];
    }
    if (operations.length === 0)
        return [format.paragraph('No operation in flight.')];
    const parts = [format.heading(`Operations (${operations.length})`, 3)];
    const after = firstOf(sections, (section) => section.timelineTask?.(report));
    const timeline = renderTimeline(operations, facts.readAt, after);
    const chart = timeline && format.chart(timeline);
    if (chart)
        parts.push(chart);
    parts.push(operationsTable(format, operations, facts, limits));
    return parts;
}
/** The table of operations: what a person checks on the console. */
function operationsTable(format, operations, facts, limits) {
    const headings = ['Operation', 'Action', 'Branch', 'Compute', 'Status', 'Duration', 'Date'];
    const row = (operation) => {
        const duration = durationOf(operation, facts);
        const failures = operation.failures_count
            ? ` (${plural(operation.failures_count, 'failure')})`
            : '';
        const status = format.status(operation.status, failures);
        const { code } = format;
        return [
            code(operation.id),
            format.text(operation.action),
            code(operation.branch_id),
            code(operation.endpoint_id),
            operation.error
                ? format.below(status, format.text(operation.error, MAX_ERROR_CHARS))
                : status,
            duration ? durationWords(duration) : '',
            formatDate(format, operation.created_at)
        ];
    };
    const shown = { maxRows: limits.operationRows, what: 'operations' };
    return limitedTable(format, headings, operations, shown, row);
}
/**
 * What the first read found over in failure that did not fail the gate (a warning each): on the
 * gated branch a `cancelled` one still the newest on its compute; on the whole project (or until it
 * was idle) what failed in the 15 minutes before the gate started.
 */
function recentFailuresSection(format, report, facts, limits) {
    const operations = (report.recentFailures ?? []).flatMap((failure) => failure.failsGate ? [] : [failure.operation]);
    if (operations.length === 0)
        return [];
    const idle = report.waitPlan?.idle;
    const why = idle
        ? `in the 15 minutes before the gate started; ${idle.failuresWhy}`
        : report.branch
            ? 'still the newest on its compute (or of its action on the branch); a cancelled operation does not fail the gate'
            : 'in the 15 minutes before the gate started; the project gate does not fail on them; gate on one branch to fail on its own';
    return [
        format.heading(`⚠️ Ended in failure before the gate started (${operations.length})`, 3),
        format.paragraph(`The newest operation on its compute or of its action, ${why}.`),
        operationsTable(format, operations, facts, limits)
    ];
}

;// CONCATENATED MODULE: ./src/steps/projects/projects-step.ts




const MAX_UNAVAILABLE_IDS = 20;
/** Its inputs in the catalog: whether to list, and the organization whose projects to list. */
const PROJECTS_INPUTS = {
    list_projects: {
        typed: 'listProjects',
        schema: () => booleanInput(false),
        command: { flag: { name: 'list-projects', boolean: true } },
        help: { part: 'what', flags: [['--list-projects', 'also list the projects the key can see']] },
        docs: {
            default: 'false',
            summary: 'Also list the projects the key can see (every page)',
            description: 'Also list every project the key can see (all pages).'
        }
    },
    org_id: {
        typed: 'orgId',
        schema: () => idInput(ORG_ID_PATTERN, 'an organization id such as org-example-12345678'),
        command: { flag: { name: 'org-id' } },
        help: { part: 'what', flags: [['--org-id ORG', 'the organization whose projects to list']] },
        docs: {
            default: '',
            summary: 'Organization to list (a personal key in several)',
            description: "Organization whose projects list_projects lists. A personal key must name one on the live API; without it, the key's only organization is used, and a key in several fails with an error listing them."
        }
    }
};
function projectsSection(format, listing, limits) {
    const { projects, unavailableProjectIds } = listing;
    const parts = [
        format.heading(`Projects (${projects.length})`, 3),
        limitedTable(format, ['Name', 'Id', 'Region', 'Engine version', 'Created'], projects, { maxRows: limits.projectRows, what: 'projects' }, (project) => [
            format.text(project.name),
            format.code(project.id),
            format.text(project.region_id),
            project.pg_version != null ? String(project.pg_version) : '',
            formatDate(format, project.created_at)
        ])
    ];
    if (unavailableProjectIds.length > 0) {
        const shown = unavailableProjectIds.slice(0, MAX_UNAVAILABLE_IDS).map(format.code);
        const more = unavailableProjectIds.length - shown.length;
        parts.push(format.paragraph(`Unavailable projects: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`));
    }
    return parts;
}
const PROJECTS_SECTION = {
    phase: 'before-wait',
    unwaitedLine: ({ listing }) => listing && [plural(listing.projects.length, 'project')],
    summary: {
        place: 'below-operations',
        render: (format, { listing }, limits) => listing && limits.projectRows > 0 ? projectsSection(format, listing, limits) : []
    },
    // `projects` is set once the rest is measured (it is cut to fit); its key here keeps the order.
    outputs: ({ listing }) => listing && {
        values: { projects: undefined, project_count: listing.projects.length },
        list: { name: 'projects', items: listing.projects }
    }
};
const PROJECTS_STEP = {
    section: PROJECTS_SECTION,
    help: { usage: '{list_projects} [{org_id}]', ends: [] },
    plan: (draft) => (draft.inputs.listProjects ? draft : undefined),
    run: async (inputs, report, { client, logger }) => {
        report.listing = await client.projects.listProjects(inputs.orgId);
        logger.info(`Found ${plural(report.listing.projects.length, 'project')}`);
        if (report.listing.unavailableProjectIds.length > 0) {
            logger.warning(`Some projects are unavailable right now: ${report.listing.unavailableProjectIds.join(', ')}`);
        }
        report.outcome = 'success';
    }
};

;// CONCATENATED MODULE: ./src/domain/branch-state.ts
const STATES = new Map([
    ['ready', 'ready'],
    ['archived', 'archived'],
    ['init', 'not ready'],
    ['resetting', 'not ready']
]);
function branchReadiness(branch) {
    if (branch.pending_state)
        return 'not ready';
    // The live API always states one: a branch without it is in a state the gate cannot judge.
    if (branch.current_state == null)
        return 'unknown';
    return STATES.get(branch.current_state) ?? 'unknown';
}
/** Whether a compute needs nothing more: it runs, or it was suspended, with no change pending. */
function computeSettled(compute) {
    return ['idle', 'active'].includes(compute.current_state ?? '') && !compute.pending_state;
}
/** Whether the gate may pass on this branch: ready, or archived (slow, but it answers). */
function canBeQueried(branch) {
    const readiness = branchReadiness(branch);
    return readiness === 'ready' || readiness === 'archived';
}

;// CONCATENATED MODULE: ./src/domain/sweep-pattern.ts
/*
 * `sweep`: which branches a sweep looks at, by name. `*` stands for any characters within one part
 * of a name (never a `/`), `{pr}` for a pull-request number (1 to 999,999,999, no leading zero),
 * which it captures; everything else stands for itself, case included, and the whole name must
 * match. `preview/*`, `preview/pr-{pr}`. A `*` right beside `{pr}` is refused: it would take some
 * of the number's digits (`pr*{pr}` would read `pr123` as #3).
 */


const PR = '{pr}';
/** A branch name is at most 256 characters: a longer pattern matches none. */
const sweep_pattern_MAX_PATTERN_CHARS = 256;
const UNSAFE = new RegExp(`[${UNSAFE_CHARACTER_CLASS}]`, 'u');
/** A part of the pattern that stands for itself, as a RegExp source. */
const sweep_pattern_literal = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The pattern `text` stands for, or what is wrong with it. */
function compile(text) {
    if (text.length > sweep_pattern_MAX_PATTERN_CHARS) {
        return `is ${text.length} characters long; a branch name has at most ${sweep_pattern_MAX_PATTERN_CHARS}`;
    }
    if (UNSAFE.test(text))
        return 'holds a control or invisible character, which no branch name has';
    const prs = text.split(PR).length - 1;
    if (prs > 1)
        return `holds ${PR} ${prs} times; a branch stands for one pull request`;
    const rest = text.split(PR).join('');
    if (/[{}]/.test(rest)) {
        return `holds a brace that is not ${PR}; ${PR} (in lower case) is the only placeholder`;
    }
    if (text.includes(`*${PR}`) || text.includes(`${PR}*`)) {
        return `has a * right beside ${PR}, which would take some of its digits; put a character that is no digit between them (preview/pr-${PR})`;
    }
    const source = text
        .split(PR)
        .map((part) => part.split('*').map(sweep_pattern_literal).join('[^/]*'))
        .join('([1-9][0-9]{0,8})');
    return { text, capturesPr: prs === 1, matcher: new RegExp(`^${source}$`, 'u') };
}
/**
 * Whether `name` matches: undefined when it does not; else what it captured (the pull request's
 * number, with `{pr}`).
 */
function matchBranch(pattern, name) {
    const found = pattern.matcher.exec(name);
    if (!found)
        return undefined;
    return pattern.capturesPr ? { pr: Number(found[1]) } : {};
}
/** The input `sweep`: a pattern, checked as every input is (its problems name it). */
const sweepPatternInput = schemas_string().transform((raw, ctx) => {
    const text = raw.trim();
    if (text === '') {
        ctx.addIssue({
            code: 'custom',
            message: 'is empty; give a branch-name pattern (preview/*, preview/pr-{pr})'
        });
        return NEVER;
    }
    const compiled = compile(text);
    if (typeof compiled === 'string') {
        ctx.addIssue({ code: 'custom', message: `"${text}" ${compiled}` });
        return NEVER;
    }
    return compiled;
});

;// CONCATENATED MODULE: ./src/domain/teardown-rules.ts
/**
 * Whether an entry of `restricted_actions` stops `action`. The document names `restore` and
 * `delete-rw-endpoint` as examples: a name that starts with `delete` covers a delete (deleting a
 * branch deletes its read-write endpoint); one that starts with `restore` or `reset` covers a
 * reset (the API's restore endpoint resets a branch to its parent).
 */
function restrictionCovers(name, action) {
    const restricted = name.trim().toLowerCase();
    const prefixes = action === 'delete' ? ['delete'] : ['restore', 'reset'];
    return prefixes.some((prefix) => restricted.startsWith(prefix));
}
/**
 * Whether `branch` is the project's default branch: `default: true`, or in older answers, which
 * lack `default`, `primary: true`.
 */
function isDefault(branch) {
    return (branch.default ?? branch.primary) === true;
}
/** What would make the API refuse `action` on `branch`, given every branch of its project. */
function judgeTeardown(action, branch, projectBranches) {
    const children = projectBranches.filter((other) => other.parent_id === branch.id && other.id !== branch.id);
    const restrictions = branch.restricted_actions ?? [];
    const covering = restrictions.filter((entry) => restrictionCovers(entry.name, action));
    const blockers = [];
    if (!branch.parent_id)
        blockers.push({ reason: 'root' });
    if (action === 'delete' && isDefault(branch))
        blockers.push({ reason: 'default' });
    if (branch.protected === true)
        blockers.push({ reason: 'protected' });
    if (action === 'delete' && children.length > 0)
        blockers.push({ reason: 'children', children });
    if (covering.length > 0)
        blockers.push({ reason: 'restricted', restrictions: covering });
    const state = branch.current_state;
    // A reset starts from ready, or archived (the API brings the branch back first).
    if (action === 'reset' && state && state !== 'ready' && state !== 'archived') {
        blockers.push({ reason: 'state', state });
    }
    return {
        blockers,
        childrenBeforeReset: action === 'reset' ? children : [],
        otherRestrictions: restrictions.filter((entry) => !covering.includes(entry))
    };
}

;// CONCATENATED MODULE: ./src/domain/sweep-verdict.ts
/*
 * The sweep's verdict, from what was read: every branch of the project (the list, maybe cut at its
 * page cap), every compute of it with `last_active`, and the pull requests' states where `{pr}`
 * names them. A matching branch is stale when its last activity (the newest of its `updated_at` and
 * its computes' `last_active`) is older than `older_than`, or when its pull request is closed or
 * merged. The default branch, a protected one and a root one are never stale. A pull request that
 * could not be read is named, never guessed; so is a branch whose activity cannot be read.
 */





/** Default (or `primary` in older answers), protected, or a root: never stale. */
function neverStale(branch) {
    return ((branch.default ?? branch.primary) === true || branch.protected === true || !branch.parent_id);
}
/** A compute the API shows in use or changing (any state but idle, or a change pending). */
const inUse = (compute) => Boolean(compute.pending_state) || (!!compute.current_state && compute.current_state !== 'idle');
/**
 * A branch the API shows changing: not ready to query (being created or reset, a change pending,
 * or a state unknown); one with no state at all is judged by its times.
 */
const changing = (branch) => !canBeQueried(branch) && (branch.current_state != null || Boolean(branch.pending_state));
/**
 * The newest of the branch's `updated_at` and its computes' `last_active`; `now` while it or one of
 * its computes is in use. Undefined when there is none, or when one given cannot be read: such a branch
 * is named, never guessed stale from its other times.
 */
function lastActivity(branch, computes, now) {
    const own = computes.filter((compute) => compute.branch_id === branch.id);
    if (changing(branch) || own.some(inUse))
        return now;
    const times = [branch.updated_at, ...own.map((compute) => compute.last_active)]
        .filter((text) => text !== undefined && text !== null)
        .map(apiTime);
    if (times.length === 0 || times.includes(undefined))
        return undefined;
    return Math.max(...times);
}
/** Each matching branch that may be stale, with its pull request's number and its last activity. */
function candidates(facts) {
    return facts.branches.flatMap((branch) => {
        const match = matchBranch(facts.pattern, branch.name);
        if (!match || neverStale(branch))
            return [];
        const active = lastActivity(branch, facts.computes, facts.now);
        const inactive = active !== undefined && facts.now - active > facts.olderThanMs;
        // In use now outweighs its pull request: closed or merged, a recipe would delete it in use.
        const pr = active === facts.now ? undefined : match.pr;
        return [{ branch, pr, active, inactive }];
    });
}
/**
 * The pull requests to read from GitHub: those `{pr}` names of matching branches that their age
 * alone does not already make stale.
 */
function pullRequestsToRead(facts) {
    const numbers = candidates(facts).flatMap(({ pr, inactive }) => pr !== undefined && !inactive ? [pr] : []);
    return [...new Set(numbers)].sort((a, b) => a - b);
}
/** Why a branch is stale by its pull request, or why that cannot be said; undefined: it is open. */
function byPullRequest(pr, state) {
    if (state === 'open')
        return undefined;
    if (state === 'closed')
        return 'pr_closed';
    if (state === 'merged')
        return 'pr_merged';
    return { why: `pull request #${pr} could not be read${state ? `: ${state.unreadable}` : ''}` };
}
/** What blocks a delete of a stale branch: its children, a restriction of deletes. */
function deleteBlockers(branch, branches) {
    return judgeTeardown('delete', branch, branches).blockers.flatMap((blocker) => blocker.reason === 'children' || blocker.reason === 'restricted' ? [blocker.reason] : []);
}
/** Why a stale branch whose id a recipe could not pass safely is named, never listed. */
const NOT_A_NEON_ID = 'its id is not a Neon id (^[a-z0-9-]{1,60}$), so it is not listed: a recipe deletes by id';
/** The sweep's verdict on every branch of `facts`. */
function judgeSweep(facts) {
    const stale = [];
    const undecided = [];
    for (const { branch, pr, active, inactive } of candidates(facts)) {
        const last_active = active === undefined ? null : new Date(active).toISOString();
        const named = { id: branch.id, name: branch.name, last_active };
        let reason = inactive ? 'inactive' : undefined;
        if (!reason && pr !== undefined && facts.pullRequests) {
            reason = byPullRequest(pr, facts.pullRequests.get(pr));
        }
        if (!reason && active === undefined) {
            reason = { why: 'its activity cannot be read (no updated_at or last_active it can read)' };
        }
        const id = NeonIdSchema.safeParse(branch.id);
        if (typeof reason === 'string' && !id.success)
            reason = { why: NOT_A_NEON_ID };
        if (typeof reason === 'object')
            undecided.push({ ...named, why: reason.why });
        if (typeof reason !== 'string' || !id.success)
            continue;
        const item = { ...named, id: id.data, reason, blockers: deleteBlockers(branch, facts.branches) };
        stale.push({ item, at: active ?? -Infinity });
    }
    stale.sort((a, b) => b.at - a.at || a.item.name.localeCompare(b.item.name) || a.item.id.localeCompare(b.item.id));
    const matched = facts.branches.filter((branch) => matchBranch(facts.pattern, branch.name)).length;
    return { stale: stale.map(({ item }) => item), undecided, matched };
}

;// CONCATENATED MODULE: ./src/domain/sweep-age.ts
/*
 * `older_than`: how long a branch matching `sweep` may go without activity before it is stale. A
 * number with a unit, `m` (minutes), `h` (hours), `d` (days) or `w` (weeks): `7d`, `36h`, `2w`,
 * `1.5d`. Without a unit it is refused: a bare `7` would be seven seconds elsewhere, and every
 * branch would be stale.
 */

const sweep_age_UNIT_MS = {
    m: 60_000,
    h: 3_600_000,
    d: 86_400_000,
    w: 7 * 86_400_000
};
const AGE = /^(\d+(?:\.\d+)?)\s*(m|h|d|w)$/;
/** Less than an hour of quiet says nothing of a preview branch: its pull request may be open. */
const MIN_OLDER_THAN_MS = sweep_age_UNIT_MS.h;
/** Ten years: a longer age is a typo. */
const MAX_OLDER_THAN_MS = 3650 * sweep_age_UNIT_MS.d;
/** `older_than` when not given: `7d`. */
const DEFAULT_OLDER_THAN_MS = 7 * sweep_age_UNIT_MS.d;
/** `7d` in milliseconds; undefined when it is not a number with one of the units. */
function parseAge(text) {
    const match = AGE.exec(text.toLowerCase());
    return match ? Math.round(Number(match[1]) * sweep_age_UNIT_MS[match[2]]) : undefined;
}
/**
 * The input `older_than` as given, in milliseconds. Not given, it is DEFAULT_OLDER_THAN_MS; given
 * empty, an input error (the catalog's entry reads it with refusingEmpty).
 */
const olderThanInput = schemas_string().transform((raw, ctx) => {
    const text = raw.trim();
    const ms = parseAge(text);
    const problem = ms === undefined
        ? 'is not an age; use a number with a unit: m (minutes), h (hours), d (days) or w (weeks), as in 7d, 36h, 2w'
        : ms < MIN_OLDER_THAN_MS
            ? 'is below the minimum of 1 hour'
            : ms > MAX_OLDER_THAN_MS
                ? 'is above the maximum of 3650 days'
                : undefined;
    if (problem === undefined)
        return ms;
    ctx.addIssue({ code: 'custom', message: `"${text}" ${problem}` });
    return NEVER;
});

;// CONCATENATED MODULE: ./src/report/sweep-report.ts
/*
 * What the report says of a sweep (issue 69), once: its line (how many stale branches among those
 * that match, and what could not be judged), its part of the summary (a table of the stale
 * branches, newest activity first, and one of those not judged), and its outputs (`stale`, cut with
 * the other JSON arrays to GitHub's 1 MB by outputs.ts, and `stale_count`, every one found). Branch
 * names are the API's text: each format escapes them.
 */


const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const REASONS = {
    inactive: 'no activity',
    pr_closed: 'pull request closed',
    pr_merged: 'pull request merged'
};
/** `7 days`, `36 hours`, `90 minutes`. */
function ageText(ms) {
    if (ms % DAY_MS === 0)
        return plural(ms / DAY_MS, 'day');
    if (ms % HOUR_MS === 0)
        return plural(ms / HOUR_MS, 'hour');
    return plural(Math.round(ms / 60_000), 'minute');
}
/** What `{pr}` added to the rule: a pull request closed or merged, or nothing, when none was read. */
function sweep_report_byPullRequest({ pattern, pullRequestsRead }) {
    if (!pattern.includes('{pr}'))
        return '';
    return pullRequestsRead
        ? ', or a pull request closed or merged'
        : '; no pull request was read, so age alone decides';
}
/**
 * The sweep in one line: `3 stale branches among 7 that match preview/pr-{pr} (no activity for
 * 7 days, or a pull request closed or merged)`, then what was not judged, and where the list was
 * cut.
 */
function sweepPhrase(findings) {
    const { verdict, pattern, olderThanMs, cut } = findings;
    const { stale, undecided, matched } = verdict;
    const found = stale.length === 0 ? 'no stale branch' : plural(stale.length, 'stale branch', 'stale branches');
    const phrase = [
        `${found} among ${matched} that match `,
        { code: pattern },
        ` (no activity for ${ageText(olderThanMs)}${sweep_report_byPullRequest(findings)})`
    ];
    if (undecided.length > 0) {
        phrase.push(`; ${plural(undecided.length, 'branch', 'branches')} could not be judged`);
    }
    if (cut) {
        phrase.push(`; the branch list stopped (${cut}): the most recently updated branches beyond it were not judged`);
    }
    return phrase;
}
/** The stale branches (at most `maxRows`), then those not judged, and why. */
function sweepSummary(format, findings, maxRows) {
    const { stale, undecided } = findings.verdict;
    const parts = [format.heading(`Stale branches: ${stale.length}`, 3)];
    const more = (count) => count > maxRows ? `… and ${count - maxRows} more (the stale output lists them)` : undefined;
    if (stale.length > 0) {
        const rows = stale
            .slice(0, maxRows)
            .map((item) => [
            format.code(item.name),
            format.code(item.id),
            formatDate(format, item.last_active),
            REASONS[item.reason],
            item.blockers.join(', ')
        ]);
        parts.push(format.table(['Branch', 'Id', 'Last active', 'Why stale', 'Blockers'], rows, more(stale.length)));
    }
    if (undecided.length > 0) {
        parts.push(format.paragraph('Not judged: nothing was guessed for these.'));
        const rows = undecided
            .slice(0, maxRows)
            .map((item) => [format.code(item.name), format.code(item.id), format.text(item.why)]);
        parts.push(format.table(['Branch', 'Id', 'Why not judged'], rows, more(undecided.length)));
    }
    if (findings.cut) {
        parts.push(format.paragraph(format.phrase([
            `The branch list stopped (${findings.cut}) before its end: the most recently updated branches beyond it were not judged, and a listed branch may have children there.`
        ])));
    }
    return parts;
}
/**
 * The outputs: `stale_count` (every stale branch found), `cut` (whether the branch list stopped
 * short of its end) and the `stale` array, which outputs.ts cuts from its end to fit GitHub's 1 MB,
 * with a note that gives the count it holds. Each entry is whole: a recipe deletes by its id (a
 * Neon id, at most 60 characters) and may show its name, which is never cut.
 */
function sweepOutputs({ verdict, cut }) {
    return {
        values: { stale_count: verdict.stale.length, cut: cut !== undefined },
        list: { name: 'stale', items: verdict.stale, whole: true }
    };
}

;// CONCATENATED MODULE: ./src/steps/sweep/sweep-step.ts
/*
 * The sweep (`sweep`, issue 69): a gate of its own, which waits for nothing. It reads every page of
 * the project's branches (bounded), its computes' activity and, with `{pr}`, the pull requests'
 * states (through the front end: only the runner reads GitHub), then judges (domain/
 * sweep-verdict.ts). Under `fail_on_stale`, a stale branch fails the run, and with none found, a
 * branch not judged or a list cut short is an error: never a pass that hides what was not read.
 */





/** What the branch list, read least recently updated first, misses when cut at its page cap. */
const UNSEEN = 'the most recently updated branches beyond it are not judged, and a listed branch may have children there';
/** Why a pull request is unread when the run's timeout came before GitHub's answer. */
const UNANSWERED = 'no answer before the timeout ran out';
/** Reads what the verdict needs: every branch, every compute, and the pull requests to read. */
async function readFacts(pattern, inputs, { client, clock, signal, deadline, readPullRequests }) {
    const { projectId, olderThanMs } = inputs;
    const { branches, cut } = await client.branches.listBranches(projectId, {
        unseen: UNSEEN,
        oldestFirst: true
    });
    const computes = await client.computes.listProjectComputes(projectId);
    const facts = { branches, computes, pattern, now: clock.wallNow(), olderThanMs };
    if (pattern.capturesPr && readPullRequests) {
        // GitHub's answers count until timeout; each one still missing then is named unread.
        const limit = (0,domain_clock/* timeLimit */.zc)(clock, deadline - clock.now(), () => new Error(UNANSWERED), signal);
        try {
            facts.pullRequests = await readPullRequests(pullRequestsToRead(facts), limit.signal);
        }
        finally {
            limit.release();
        }
    }
    return { facts, cut };
}
/** The run's outcome from the findings, and what was not judged in the log. */
function sweepDecided(report, inputs, logger) {
    const findings = report.sweep;
    const { stale, undecided } = findings.verdict;
    for (const branch of undecided) {
        logger.warning(`Branch "${branch.name}" (${branch.id}) was not judged: ${branch.why}`);
    }
    logger.info(phraseText(capitalized(sweepPhrase(findings))));
    if (findings.verdict.matched === 0 && findings.cut === undefined) {
        // A pattern with a typo finds nothing to sweep, run after run: never a silent pass.
        logger.warning(`No branch of the project matches ${JSON.stringify(findings.pattern)}: check the pattern`);
    }
    const unread = undecided.length > 0 || findings.cut !== undefined;
    if (inputs.failOnStale && stale.length > 0)
        report.outcome = 'failure';
    else if (inputs.failOnStale && unread) {
        report.outcome = 'error';
        report.error = `Could not tell that no branch is stale: ${phraseText(notRead(findings))}`;
    }
    else
        report.outcome = 'success';
}
/** What was not judged: branches, and the list beyond its cut. */
function notRead({ verdict, cut }) {
    const parts = [
        verdict.undecided.length > 0 &&
            `${plural(verdict.undecided.length, 'matching branch', 'matching branches')} could not be judged`,
        cut && `the branch list stopped (${cut}) before its end`
    ].filter((part) => Boolean(part));
    return [parts.join('; ')];
}
const SWEEP_SECTION = {
    phase: 'before-wait',
    outcomeLine: ({ sweep, outcome }) => sweep && (outcome === 'success' || outcome === 'failure') ? sweepPhrase(sweep) : undefined,
    errorLine: ({ sweep, outcome }) => sweep && outcome === 'failure' ? phraseText(capitalized(sweepPhrase(sweep))) : undefined,
    summary: {
        place: 'above-operations',
        render: (format, { sweep }, limits) => sweep ? sweepSummary(format, sweep, limits.operationRows) : []
    },
    outputs: ({ sweep }) => sweep && sweepOutputs(sweep)
};
const SWEEP_STEP = {
    section: SWEEP_SECTION,
    help: {
        usage: 'sweep {sweep} [{older_than}] [{fail_on_stale}]',
        ends: [
            ['failure', 'sweep {fail_on_stale} found a stale branch'],
            ['error', 'sweep {fail_on_stale} found none stale but could not judge every branch']
        ]
    },
    // A gate of its own: no branch resolved, no wait, fail_fast and the database left out.
    plan: (draft) => draft.inputs.sweep
        ? { ...draft, gate: 'sweep', stepsAlone: true, wait: { ...draft.wait, failFast: false } }
        : undefined,
    run: async (inputs, report, context) => {
        const { sweep: pattern, projectId } = inputs;
        if (!pattern || !projectId)
            return;
        report.projectId = projectId;
        const olderThanMs = inputs.olderThanMs ?? DEFAULT_OLDER_THAN_MS;
        const { facts, cut } = await readFacts(pattern, { projectId, olderThanMs }, context);
        report.sweep = {
            verdict: judgeSweep(facts),
            pattern: pattern.text,
            olderThanMs,
            pullRequestsRead: facts.pullRequests !== undefined,
            ...(cut ? { cut } : {})
        };
        sweepDecided(report, inputs, context.logger);
    }
};

;// CONCATENATED MODULE: ./src/steps/teardown/teardown-check.ts



/** Before a delete, a branch that `branch_id` names no more: nothing to delete. */
function goneBeforeDelete(branch) {
    return { action: 'delete', preflight: 'gone', branch };
}
/**
 * Reads `branch` anew, then every branch of the project (every page), and judges: `blocked` when
 * the API would refuse `action` now, else `clear` (`unread` when the list stopped at its cap). When the branch went while the gate waited,
 * `branch_id` (`input`) is resolved again: a branch that has its name now is checked instead;
 * `gone` when it names none before a delete; an input error before a reset, as when the gate starts.
 */
async function checkTeardown(action, branch, { reader, projectId, input }) {
    let fresh;
    try {
        fresh = await reader.getTeardownBranch(projectId, branch.id);
    }
    catch (error) {
        if (!(error instanceof ApiError && error.status === 404))
            throw error;
        const now = await resolvedAgain(action, branch, { reader, projectId, input });
        if (now === 'gone')
            return goneBeforeDelete(branch);
        fresh = await reader.getTeardownBranch(projectId, now.id);
    }
    const { branches, cut } = await reader.listBranches(projectId);
    const judgement = judgeTeardown(action, fresh, branches);
    return {
        action,
        preflight: judgement.blockers.length > 0 ? 'blocked' : 'clear',
        branch: fresh,
        judgement,
        ...(cut === undefined ? {} : { unread: cut })
    };
}
/**
 * `branch` answered 404: the branch `input` names now (another made under its name), or `gone`
 * before a delete; an error when the project itself does not answer.
 */
async function resolvedAgain(action, branch, { reader, projectId, input }) {
    try {
        return await resolveBranch(reader, projectId, input);
    }
    catch (error) {
        if (!(error instanceof NoSuchBranchError))
            throw error;
        if (action === 'delete')
            return 'gone';
        throw new NoSuchBranchError(({ label }) => `${label('branch_id')}: project "${projectId}" has no branch "${branch.id}" any more (${branch.name} was deleted while the gate waited); there is nothing to reset`);
    }
}

;// CONCATENATED MODULE: ./src/report/headline.ts
/*
 * What a report says first: why the gate ended as it did. The facts are put together once, as
 * phrases of our own words and API text kept apart, and told twice: as HTML in the summary and the
 * comment (API text escaped), and as plain text in the step's error line (made safe by the log).
 * A step that decided the outcome says it through its section (section.ts).
 */






/**
 * The summary's first line after the outcome's label: on failure what failed, on timeout and
 * cancellation what was still in flight and for how long, on success how many finished and in how
 * long. Undefined when the outcome needs no more (an error, which is quoted beside it).
 */
function outcomeLine(sections, report, facts) {
    const { wait, outcome } = report;
    if (!outcome || outcome === 'error')
        return undefined;
    const decided = firstOf(sections, (section) => section.outcomeLine?.(report, facts));
    if (decided)
        return decided;
    if (!facts.seen) {
        const silence = apiSilence(report);
        if (silence)
            return [`${silence}, so the state is unknown`];
        const found = wait ? undefined : firstOf(sections, (section) => section.unwaitedLine?.(report));
        if (found)
            return found;
        return outcome === 'success' ? undefined : ['nothing could be read, so the state is unknown'];
    }
    switch (outcome) {
        case 'success': {
            const added = sections
                .map((section) => section.successLine?.(report))
                .filter((line) => line !== undefined);
            // Nothing finished: what a step adds says it alone.
            const finished = facts.seen.length > 0 || added.length === 0 ? [[finishedText(report, facts)]] : [];
            return [...finished, ...added].flatMap((part, index) => (index > 0 ? ['; ', ...part] : part));
        }
        case 'failure':
            return [
                facts.failed.length > 1 ? `${facts.failed.length} operations failed: ` : '',
                ...failedList(facts)
            ];
        default:
            if (facts.inFlight.length > 0)
                return inFlightPhrase(facts);
            return unfinishedStep(report) ?? branchNotReady(report);
    }
}
/** `all 2 operations finished in 3.1 s`, or `no operation in flight`. */
function finishedText({ wait }, facts) {
    const finished = facts.seen?.length ?? 0;
    if (finished === 0)
        return 'no operation in flight';
    return `${finished === 1 ? 'the operation finished' : `all ${finished} operations finished`}${took(wait)}`;
}
/** ` in 3.1 s`: how long the wait took, when there was one. */
function took(wait) {
    return wait ? ` in ${formatDuration(wait.elapsedMs)}` : '';
}
/**
 * The run cut short with nothing in flight after a wait until the project was idle: what the step
 * it waited for never got to check.
 */
function unfinishedStep({ waitPlan }) {
    return waitPlan?.idle && [waitPlan.idle.unchecked];
}
/**
 * `branch preview/pr-7 is still init`, while the gated branch cannot be queried yet (never on a
 * project waited for until idle, which does not wait for that).
 */
function branchNotReady(report) {
    const { branch } = report;
    if (!branch || report.waitPlan?.covers === 'idle project' || canBeQueried(branch))
        return undefined;
    return ['branch ', { code: branch.name }, ' is still ', ...branchStatePhrase(branch)];
}
/**
 * The step's error line: the error, or the operations that failed, by id, and apart from them those
 * still in flight (with how long so far); on a timeout or a cancellation, what was still in flight.
 * Undefined when the outcome is no failure.
 */
function errorLine(sections, report) {
    const line = errorLineAlone(sections, report);
    const silence = apiSilence(report);
    // Said first: nothing was ever read, so what the line goes on to say was never known.
    if (!line || !silence)
        return line;
    const rest = /^[A-Z][a-z]/.test(line) ? line.charAt(0).toLowerCase() + line.slice(1) : line;
    return `${phraseText(capitalized([silence]))}: ${rest}`;
}
function errorLineAlone(sections, report) {
    const { outcome } = report;
    if (report.error)
        return report.error;
    if (outcome !== 'failure' && outcome !== 'timeout' && outcome !== 'cancelled')
        return undefined;
    const decided = firstOf(sections, (section) => section.errorLine?.(report));
    if (decided)
        return decided;
    const facts = operation_facts_operationFacts(report);
    if (outcome === 'failure')
        return failureLine(facts);
    const reason = report.wait?.reason ? ` (${report.wait.reason})` : '';
    // Gave up because no retry fitted: say so, with the numbers, never that the timeout ran out.
    const cut = outcome === 'timeout'
        ? report.noRetryFits
            ? 'Gave up'
            : 'timeout ran out'
        : 'The wait was cancelled';
    if (!facts.seen) {
        return `${cut} before anything could be read${reason}: the state of the operations is unknown`;
    }
    const inFlight = facts.inFlight.length > 0;
    const branch = !inFlight && branchNotReady(report);
    if (branch)
        return `${cut} while ${phraseText(branch)}${report.noRetryFits ? reason : ''}`;
    const still = inFlight ? `: ${phraseText(inFlightList(facts, true))}` : '';
    return outcome === 'timeout'
        ? `${cut} while operations were still in flight${still}${reason}`
        : `${cut}${still}`;
}
/** The operations that failed, by id, and beside them those still in flight. */
function failureLine(facts) {
    const count = facts.failed.length;
    const what = count === 1 ? 'An operation' : `${count} operations`;
    const beside = facts.inFlight.length > 0 ? `; ${phraseText(inFlightPhrase(facts, true))}` : '';
    // When every failure was over before the gate started, the line says so once, up front.
    const ended = facts.failed.filter((operation) => facts.endedBeforeStart.has(operation.id));
    const when = ended.length === count ? ' before the gate started' : '';
    const way = ended.length > 0 ? wayOut(ended) : '';
    return `${what} ended in failure${when}: ${phraseText(failedList(facts, true))}${beside}${way}`;
}
/**
 * The way out of a failure the first read found: nothing on its compute (or of its action) has
 * succeeded since, so a re-run alone fails again.
 */
function wayOut(endedBefore) {
    const onCompute = endedBefore.some((operation) => operation.endpoint_id);
    return `; nothing has succeeded there since, so a re-run fails again: ${onCompute ? 'start the compute again (or re-create the branch)' : 're-create the branch (or run the action again)'}, then re-run the gate`;
}

;// CONCATENATED MODULE: ./src/steps/teardown/teardown-words.ts
/*
 * What the report says of the check before a teardown (`before`), once: whether the branch can be
 * deleted or reset now, what blocks it and what to do about it, what is only worth a warning or a
 * notice, and the `blockers` output (its section of the summary is teardown-section.ts).
 */



/** Child branches a line names, then a count. */
const NAMED_CHILDREN = 10;
/** Restrictions a line names, then a count. */
const NAMED_RESTRICTIONS = 5;
/** Failures while the gate waited warned about one by one; the summary's table has them all. */
const MAX_FAILURE_WARNINGS = 5;
const DONE = { delete: 'deleted', reset: 'reset' };
/** Why a child the cut branch list did not show cannot make the teardown a wrong one. */
const UNREAD_CHILDREN = {
    delete: 'the API refuses to delete a branch that has children, so at worst the delete is refused, never a wrong one',
    reset: 'the API refuses to reset a branch that has children without preserve_under_name, so at worst the reset is refused'
};
/** `preview/pr-7 (br-preview-pr-7)`, or the name alone when that is all there is. */
function branchNamed(branch) {
    const id = branch.id && branch.id !== branch.name ? [' (', { code: branch.id }, ')'] : [];
    return [{ code: branch.name }, ...id];
}
/** The first few items, joined with `joint`, and how many more there are. */
function teardown_words_listed(items, named, joint, item) {
    const phrase = [];
    items.slice(0, named).forEach((value, index) => {
        if (index > 0)
            phrase.push(joint);
        phrase.push(...item(value));
    });
    if (items.length > named)
        phrase.push(`${joint}and ${items.length - named} more`);
    return phrase;
}
/** `preview/a (br-a), preview/b (br-b), and 3 more` */
function childrenList(children) {
    return teardown_words_listed(children, NAMED_CHILDREN, ', ', branchNamed);
}
/** `delete-rw-endpoint: “used by an integration”; restore: …` */
function restrictionsList(restrictions) {
    return teardown_words_listed(restrictions, NAMED_RESTRICTIONS, '; ', (entry) => [
        { code: entry.name },
        ...(entry.reason ? [': ', { quote: entry.reason }] : [])
    ]);
}
/** What one blocker is, and what a person can do about it. */
function blockerPhrase(blocker, action) {
    switch (blocker.reason) {
        case 'root':
            return action === 'delete'
                ? ['it is a root branch (it has no parent_id), which the API does not delete']
                : ['it is a root branch (it has no parent_id): there is no parent to reset it to'];
        case 'default':
            return ["it is the project's default branch; make another branch the default first"];
        case 'protected':
            return ['it is protected; remove its protection first'];
        case 'children':
            return [
                `it has ${plural(blocker.children.length, 'child branch', 'child branches')}, to delete first: `,
                ...childrenList(blocker.children)
            ];
        case 'restricted':
            return [
                `its restricted_actions refuse a ${action}: `,
                ...restrictionsList(blocker.restrictions)
            ];
        case 'state':
            return [
                'it is ',
                { code: truncate(blocker.state, 40) },
                ", not ready: Neon's API resets (restores) a branch once it is ready, not while it is still being created or reset; wait until it is ready, then reset it"
            ];
    }
}
/**
 * The check in one line: `branch preview/pr-7 (br-…) cannot be deleted: it is protected; …`, `… can
 * be deleted now: nothing blocks it`, `branch preview/pr-7 is gone: nothing to delete`, or that it
 * was not checked, because work was still in flight (`busy`).
 */
function teardownPhrase(check) {
    const branch = ['branch ', ...branchNamed(check.branch)];
    if (check.preflight === 'gone')
        return [...branch, ' is gone: nothing to delete'];
    if (check.preflight === 'busy') {
        return [
            ...branch,
            ` was not checked: the project still has work in flight, so a ${check.action} now would meet 423 Locked`
        ];
    }
    const done = DONE[check.action];
    if (check.preflight === 'clear')
        return [...branch, ` can be ${done} now: nothing blocks it`];
    return [
        ...branch,
        ` cannot be ${done}: `,
        ...teardown_words_listed(check.judgement.blockers, Infinity, '; ', (blocker) => blockerPhrase(blocker, check.action))
    ];
}
/** Each blocker's reason, and what it is and what to do about it; none when nothing blocks. */
function blockerDetails(check) {
    if (check.preflight === 'gone' || check.preflight === 'busy')
        return [];
    return check.judgement.blockers.map((blocker) => ({
        reason: blocker.reason,
        detail: blockerPhrase(blocker, check.action)
    }));
}
/** The `blockers` output: `{reason, detail}` for each, `[]` when nothing blocks the branch. */
function blockersOutput(check) {
    return blockerDetails(check).map(({ reason, detail }) => ({ reason, detail: phraseText(detail) }));
}
/**
 * What is worth a warning or a notice beside the outcome: child branches before a reset (it must
 * keep the current state under another name), and restrictions that stop neither action; a branch
 * gone (a notice), or not checked while work was in flight (a warning: a teardown now meets 423).
 */
function teardownNotes(check) {
    if (check.preflight === 'gone')
        return { warnings: [], notices: [teardownPhrase(check)] };
    if (check.preflight === 'busy') {
        const wayOut = `; let the gate wait until the project is idle, or retry the ${check.action} on 423`;
        return { warnings: [[...capitalized(teardownPhrase(check)), wayOut]], notices: [] };
    }
    const branch = ['Branch ', ...branchNamed(check.branch)];
    const { childrenBeforeReset: children, otherRestrictions } = check.judgement;
    const warnings = [];
    if (check.unread !== undefined && check.preflight === 'clear') {
        warnings.push([
            ...branch,
            `: the project's branch list stopped (${check.unread}) before its end, so its children among the branches beyond it were not read; `,
            UNREAD_CHILDREN[check.action]
        ]);
    }
    if (children.length > 0) {
        warnings.push([
            ...branch,
            ` has ${plural(children.length, 'child branch', 'child branches')} (`,
            ...childrenList(children),
            '): the reset must keep its current state under another name (preserve_under_name), where the children move'
        ]);
    }
    const notices = [];
    if (otherRestrictions.length > 0) {
        notices.push([
            ...branch,
            ` lists restricted actions that do not stop a ${check.action}: `,
            ...restrictionsList(otherRestrictions)
        ]);
    }
    return { warnings, notices };
}
/**
 * Before a teardown the gate waits for the project to be idle, not for its operations to succeed:
 * a warning for each that ended in failure while it waited (the first few, then a count).
 */
function failedWhileIdling(operations, action) {
    const failed = operations.filter((operation) => classifyStatus(operation.status) === 'failure');
    const warnings = failed
        .slice(0, MAX_FAILURE_WARNINGS)
        .map((operation) => [
        'Ended in failure while the gate waited: ',
        { code: operation.action ?? 'operation' },
        ' ',
        { code: operation.id },
        ' on ',
        { code: operation.branch_id ?? 'its branch' },
        ', ',
        { code: operation.status },
        ...(operation.error ? [': ', { quote: operation.error }] : []),
        `; before a ${action}, a failure is no reason to stop`
    ]);
    if (failed.length > MAX_FAILURE_WARNINGS) {
        warnings.push([
            `… and ${plural(failed.length - MAX_FAILURE_WARNINGS, 'more operation')} ended in failure while the gate waited; the summary lists them`
        ]);
    }
    return warnings;
}

;// CONCATENATED MODULE: ./src/steps/teardown/teardown-section.ts




/** Why the check may still meet a 423: it reads, and the control plane can start work after it. */
const TEARDOWN_RACE = 'The check reads and never writes: the control plane can start an operation between it and the teardown, so the teardown step should still retry a 423 (Locked).';
/**
 * Before a teardown, once the check decided: what blocks the branch (a table: the reason, what to
 * do), what is only a warning or a notice, and why the teardown step should still retry a 423.
 */
function teardownSection(format, report) {
    const check = report.teardown;
    if (!check)
        return [];
    const parts = [format.heading(`Before a ${check.action}: ${check.preflight}`, 3)];
    const blockers = blockerDetails(check);
    if (blockers.length > 0) {
        parts.push(format.table(['Blocker', 'What it is, and what to do'], blockers.map(({ reason, detail }) => [format.code(reason), format.phrase(detail)])));
    }
    const { warnings, notices } = teardownNotes(check);
    for (const warning of warnings)
        parts.push(format.paragraph(`⚠️ ${format.phrase(warning)}`));
    for (const notice of notices)
        parts.push(format.paragraph(`ℹ️ ${format.phrase(notice)}`));
    if (check.preflight === 'clear' || check.preflight === 'blocked') {
        parts.push(format.paragraph(TEARDOWN_RACE));
    }
    return parts;
}
/**
 * Before a teardown, what ended in failure does not stop the gate: `all 2 operations ended in
 * 3.1 s, 1 of them in failure`, never that they all finished.
 */
function idleText(report, facts) {
    const failed = facts.failed.length;
    if (failed === 0)
        return finishedText(report, facts);
    const ended = facts.seen?.length ?? failed;
    return ended === 1
        ? `the operation ended${took(report.wait)}, in failure`
        : `all ${ended} operations ended${took(report.wait)}, ${failed} of them in failure`;
}
/**
 * The first line once the check decided: what blocks the branch, or that nothing does and the
 * project is idle, or that the branch is gone.
 */
function teardownLine(report, facts) {
    const check = report.teardown;
    const { outcome } = report;
    if (!check || (outcome !== 'success' && outcome !== 'failure'))
        return undefined;
    const phrase = teardownPhrase(check);
    if (check.preflight !== 'clear')
        return phrase;
    return [...phrase, `; the project is idle: ${idleText(report, facts)}`];
}
/**
 * Before a teardown, once the check has decided, or `busy` while something was still in flight:
 * then the branch was not checked, so nothing is said of what blocks it. A branch checked gives
 * its id: the teardown after the gate deletes exactly that branch, where a name read again by
 * another tool (untrimmed, or taken by a new branch since) could find another or none.
 */
function teardownOutputs({ teardown }) {
    if (!teardown)
        return {};
    const { preflight } = teardown;
    if (preflight === 'busy')
        return { preflight };
    const blockers = blockersOutput(teardown);
    return preflight === 'gone'
        ? { preflight, blockers }
        : { preflight, preflight_branch_id: teardown.branch.id, blockers };
}
const TEARDOWN_SECTION = {
    phase: 'after-wait',
    outcomeLine: teardownLine,
    errorLine: ({ teardown }) => teardown?.preflight === 'blocked'
        ? phraseText(capitalized(teardownPhrase(teardown)))
        : undefined,
    summary: { place: 'above-operations', render: teardownSection },
    outputs: (report) => ({ values: teardownOutputs(report) }),
    // What blocks the branch, titled with the action, the branch and the reasons; alone.
    annotation: ({ teardown }, errorLine) => {
        if (teardown?.preflight !== 'blocked')
            return undefined;
        const reasons = teardown.judgement.blockers.map((blocker) => blocker.reason).join(', ');
        const title = `cannot ${teardown.action} branch ${teardown.branch.name}: ${reasons}`;
        return {
            annotation: { title: truncate(title, 200), message: truncate(errorLine, 1000) },
            alone: true
        };
    }
};

;// CONCATENATED MODULE: ./src/steps/teardown/teardown-step.ts






/**
 * Before a teardown, once the project is idle: what ended in failure while the gate waited is
 * warned about, then one fresh read of the branch and of the project's branches decides.
 */
async function checkBeforeTeardown(client, { before: action, branchId }, { projectId, branch }, report, logger) {
    if (!action)
        return;
    // What `branch_id` said: should the branch go while the gate waits, it is resolved again.
    const input = branchId ?? branch.id;
    for (const warning of failedWhileIdling(report.wait?.operations ?? [], action)) {
        logger.warning(phraseText(warning));
    }
    const check = await checkTeardown(action, branch, { reader: client.branches, projectId, input });
    if (check.preflight !== 'gone')
        report.branch = check.branch;
    teardownDecided(report, check, logger);
}
/** The check's outcome in the report, and its warnings and notices in the log. */
function teardownDecided(report, check, logger) {
    report.teardown = check;
    report.outcome = check.preflight === 'blocked' ? 'failure' : 'success';
    const { warnings, notices } = teardownNotes(check);
    for (const warning of warnings)
        logger.warning(phraseText(warning));
    for (const notice of notices)
        logger.notice(phraseText(notice));
    if (check.preflight === 'clear')
        logger.info(phraseText(capitalized(teardownPhrase(check))));
}
/**
 * Before a teardown, the run ended while work was still in flight (a timeout, or `wait: false`):
 * the branch is `busy`, with a warning that a teardown now would meet 423 Locked. Not when nothing
 * was seen in flight (the first read never answered): then nothing is known.
 */
function teardownBusy(report, { before: action }, logger) {
    const { branch, outcome } = report;
    if (!action || report.teardown || !branch)
        return;
    if (outcome !== 'timeout' && outcome !== 'pending')
        return;
    const seen = seenOperations(report) ?? [];
    if (!seen.some((operation) => isUnfinished(operation.status)))
        return;
    report.teardown = { action, preflight: 'busy', branch };
    for (const warning of teardownNotes(report.teardown).warnings) {
        logger.warning(phraseText(warning));
    }
}
/**
 * Its plan: the whole project until idle, `fail_fast` off and no database query (a failure is no
 * reason to stop a teardown, and a branch about to go is not queried; the front ends warn that
 * these are ignored); a branch gone before a delete ends the run, and so does `busy`.
 */
const teardownPlan = (draft) => {
    const { inputs } = draft;
    const action = inputs.before;
    if (!action)
        return undefined;
    return {
        ...draft,
        gate: 'teardown',
        inputs: { ...inputs, failFast: false, database: undefined },
        wait: {
            ...draft.wait,
            covers: 'idle project',
            failFast: false,
            next: 'the project is idle; the branch check comes next',
            idle: {
                for: `before a ${action}`,
                then: 'whether the branch can go',
                failuresWhy: `before a ${action}, a failure is no reason to stop: a broken branch is one to ${action}`,
                unchecked: 'the project is idle, but the branch was not checked'
            }
        },
        branchGone: (report, logger) => {
            if (action !== 'delete' || !inputs.branchId)
                return false;
            teardownDecided(report, goneBeforeDelete({ name: inputs.branchId }), logger);
            return true;
        },
        ending: (report, logger) => teardownBusy(report, inputs, logger)
    };
};
const TEARDOWN_STEP = {
    section: TEARDOWN_SECTION,
    help: {
        usage: '{project_id} {branch_id} {before}',
        ends: [['failure', '{before} found a blocker']]
    },
    plan: teardownPlan,
    run: async (inputs, report, { client, projectId, branch, logger }) => {
        if (projectId && branch)
            await checkBeforeTeardown(client, inputs, { projectId, branch }, report, logger);
    }
};

;// CONCATENATED MODULE: ./src/gate/steps.ts




const STEPS = [PROJECTS_STEP, SWEEP_STEP, TEARDOWN_STEP, DATABASE_STEP];
const steps_SECTIONS = STEPS.map((step) => step.section);

;// CONCATENATED MODULE: ./src/gate/plan.ts

/**
 * The gate the inputs ask for, before a step's hook changes it. parseInputs has refused every
 * combination in which an input would be left out to the gate's loss: what is given here is checked.
 */
function gateKindOf(inputs) {
    if (!inputs.projectId)
        return 'projects';
    if (inputs.operationIds.length > 0)
        return 'operations';
    return inputs.branchId ? 'branch' : 'project';
}
/** The plan of a run on `inputs`. */
function planOf(inputs) {
    const gate = gateKindOf(inputs);
    const covers = gate === 'projects' ? 'project' : gate;
    let plan = { inputs, gate, wait: { covers, failFast: inputs.failFast }, steps: [] };
    for (const step of STEPS) {
        const shaped = step.plan(plan);
        if (shaped)
            plan = { ...shaped, steps: [...shaped.steps, step] };
    }
    return plan;
}
/**
 * Whether each read gives up within 3 intervals instead of retrying until `timeout`: with `wait:
 * false`, and in a plan that waits for nothing (a sweep), where an API that cannot answer (a
 * proxy's page) is an error to say at once.
 */
function readsOnce(plan) {
    return !plan.inputs.wait || plan.stepsAlone === true;
}
/** Whether the run ends with a query of the database: with a gate, when the plan keeps it. */
function queriesDatabase(plan) {
    return plan.inputs.database !== undefined && plan.gate !== 'projects';
}

;// CONCATENATED MODULE: ./src/wait/operation-sources.ts
/** The operations named by `operation_id`, read one by one until each is final. */
class OperationIdsSource {
    reader;
    projectId;
    ids;
    isDone;
    states = new Map();
    completedPolls = 0;
    constructor(reader, projectId, ids, isDone) {
        this.reader = reader;
        this.projectId = projectId;
        this.ids = ids;
        this.isDone = isDone;
    }
    async poll() {
        for (const id of this.ids) {
            const known = this.states.get(id);
            if (known && this.isDone(known))
                continue;
            this.states.set(id, await this.reader.getOperation(this.projectId, id));
        }
        this.completedPolls++;
    }
    get operations() {
        return this.ids.flatMap((id) => this.states.get(id) ?? []);
    }
}

;// CONCATENATED MODULE: ./src/wait/branch-history.ts
/*
 * How far back the branch gate's first read goes, and what stands for what it did not reach. No age
 * decides a verdict: the read goes on until it has seen the newest operation of every compute of
 * the branch (as the API lists them), however old, and back to the branch's creation, so that its
 * actions without a compute are judged too. Where the page cap (or the list's end) comes first,
 * history gives way to state, never to a guess: a compute whose history was not read keeps the gate
 * open until the API shows it idle or active with nothing pending, and the branch's own state
 * stands for the rest (gated-branch.ts). A notice says how far back the read went. Where the API
 * stops the read first (a cursor handed out twice, a page without one), that history could not be
 * read at all, so the gate cannot judge the branch: an error, never a pass on state.
 */





class BranchHistory {
    branch;
    readComputes;
    logger;
    /** The branch's computes as the API last listed them, by id. */
    computes = new Map();
    /** The computes of which the read has listed no operation yet. */
    unseen = new Set();
    /**
     * The computes whose newest operation the read surely listed: one on its first page, newer than
     * that page's end. The next page holds only operations older than that end, so one tied with it
     * may be on neither page.
     */
    newestListed = new Set();
    createdAt;
    reachedCreation = false;
    pages = 0;
    /** Set when the first read stopped short of the branch's history: how far back it went. */
    notJudged;
    constructor(branch, computes, readComputes, logger) {
        this.branch = branch;
        this.readComputes = readComputes;
        this.logger = logger;
        for (const compute of computes) {
            this.computes.set(compute.id, compute);
            this.unseen.add(compute.id);
        }
        this.createdAt = apiTime(branch.created_at);
    }
    /** The next page of the list, newest first (any branch's operations: the list is the project's). */
    page(operations) {
        if (this.pages++ === 0) {
            for (const id of this.ownComputes(newerThanPageEnd(operations)))
                this.newestListed.add(id);
        }
        for (const id of this.ownComputes(operations))
            this.unseen.delete(id);
        const createdAt = this.createdAt;
        if (createdAt !== undefined && operations.some((each) => createdBefore(each, createdAt))) {
            this.reachedCreation = true;
        }
    }
    /** The computes of the branch that `operations` act on. */
    ownComputes(operations) {
        return operations.flatMap(({ branch_id, endpoint_id }) => branch_id === this.branch.id && endpoint_id ? [endpoint_id] : []);
    }
    /**
     * Whether the read has got back to the branch's creation (before it, the branch has no operation:
     * a compute still unseen has none listed), or, when its creation time cannot be read, to the
     * newest operation of every compute.
     */
    get complete() {
        return this.reachedCreation || (this.createdAt === undefined && this.unseen.size === 0);
    }
    /**
     * After the first read: `end` says why it stopped, `oldest` is the oldest creation time it read.
     * Where it stopped at the page cap before the branch's history, says how far back it went. Where
     * the API stopped it there, returns why the history cannot be judged.
     */
    ended(end, read, oldest) {
        const serverStop = SERVER_STOPS[end];
        if ((end !== 'page cap' && !serverStop) || this.complete)
            return undefined;
        const back = Number.isFinite(oldest) ? `, back to ${new Date(oldest).toISOString()}` : '';
        const creation = this.branch.created_at
            ? ` (created ${truncate(this.branch.created_at, 40)})`
            : '';
        const where = `read ${plural(read, 'operation')}${back}, and stopped there (${serverStop ?? 'the page cap'}), short of the branch's creation${creation}`;
        if (serverStop) {
            return `the branch gate ${where}: its older history cannot be judged, and the gate does not pass on what it could not read`;
        }
        const computes = [...this.unseen].map((id) => truncate(id, 80));
        const standing = computes.length > 0
            ? `the own state of ${plural(computes.length, 'compute')} whose operations it did not reach (${computes.join(', ')}) and the branch's stand for it`
            : "the branch's own state stands for it";
        this.notJudged = `Branch gate: ${where}: its older history was not judged; ${standing}`;
        this.logger.notice(this.notJudged);
        return undefined;
    }
    /** Reads anew the computes whose state decides, while one keeps the gate open. */
    async readAgain() {
        if (!this.unsettled)
            return;
        const computes = new Map((await this.readComputes()).map((compute) => [compute.id, compute]));
        for (const id of this.computes.keys()) {
            const compute = computes.get(id);
            // A compute no longer listed is gone: nothing of it can keep the gate open.
            if (compute)
                this.computes.set(id, compute);
            else
                this.computes.delete(id);
        }
    }
    /**
     * Why the gate cannot pass yet: a compute whose newest operation the read did not surely list
     * that the API does not show idle or active with nothing pending.
     */
    get unsettled() {
        const open = [...this.computes.values()].find((compute) => !this.newestListed.has(compute.id) && !computeSettled(compute));
        if (!open)
            return undefined;
        const state = truncate(open.current_state ?? 'of no state', 40);
        const pending = open.pending_state ? `, pending ${truncate(open.pending_state, 40)}` : '';
        const read = this.unseen.has(open.id)
            ? 'its operations were not read'
            : "the list may not show its newest operation (tied in time with a page's end)";
        return `compute ${truncate(open.id, 80)} of the branch is ${state}${pending}, and ${read}: the gate waits until it is idle or active with nothing pending`;
    }
}

;// CONCATENATED MODULE: ./src/wait/gated-branch.ts
/*
 * The branch the project gate is narrowed to (`branch_id`): whether it can be queried, read anew in
 * every poll that finds its operations final, since what was read at resolution or before its
 * operations ran says nothing of now. Its state is told when it changes (and at the first poll), an
 * archived branch warned about at each read, an unknown state once.
 */



class GatedBranch {
    branch;
    readAgain;
    logger;
    warnedStates = new Set();
    /** `branch`: as resolved, then as last read; `readAgain` reads the resolved branch anew. */
    constructor(branch, readAgain, logger) {
        this.branch = branch;
        this.readAgain = readAgain;
        this.logger = logger;
    }
    async read(firstPoll) {
        const previous = branchStateText(this.branch);
        this.branch = await this.readAgain();
        const state = branchStateText(this.branch);
        const readiness = branchReadiness(this.branch);
        const name = `Branch ${truncate(this.branch.name, 80)} (${this.branch.id})`;
        if (readiness === 'archived') {
            this.logger.warning(`${name} is archived: its first queries will be slow`);
        }
        else if (readiness === 'unknown' && !this.warnedStates.has(state)) {
            this.warnedStates.add(state);
            this.logger.warning(`${name} is in an unknown state, ${state}; waiting until it is ready`);
        }
        else if (state !== previous || firstPoll) {
            this.logger.info(`${name} is ${state}`);
        }
    }
}
function branchStateText(branch) {
    return phraseText(branchStatePhrase(branch));
}

;// CONCATENATED MODULE: ./src/wait/later-polls.ts
/*
 * How the project gate's later polls read the operations list (newest first): from the top back to
 * what earlier polls had already seen, however many operations were listed since, so that a burst
 * elsewhere in the project cannot push a new operation of the gated branch out of sight. A poll
 * that stops before it gets there (at its page cap, or where the API gave no cursor to go on or one
 * it had given before) leaves a stretch unread: the next poll reads on from where it stopped, and
 * until every such stretch is read the gate cannot pass.
 */




/** Page size of later polls, which usually need only the newest few operations. */
const GATE_POLL_PAGE_LIMIT = 100;
/** At most this many pages on each later poll down to the oldest pending operation; older ones are read by id. */
const GATE_MAX_POLL_PAGES = 3;
/**
 * At most this many pages a poll to read back to what earlier polls had seen (1,000 operations
 * listed since); past that, the next poll reads on from where this one stopped.
 */
const GATE_MAX_CATCH_UP_PAGES = 10;
class LaterPolls {
    readPage;
    logger;
    /** The poll in which a list first showed each operation. */
    firstListedIn = new Map();
    /** The newest creation time any list has shown. */
    newestListedAt = -Infinity;
    /** Stretches a poll stopped in short of what had been seen, newest first: read on by the next poll. */
    unread = [];
    /** The first read's horizon: no later read needs to go further back. */
    horizon = -Infinity;
    constructor(readPage, logger) {
        this.readPage = readPage;
        this.logger = logger;
    }
    /** How many operations the lists have shown. */
    get listedCount() {
        return this.firstListedIn.size;
    }
    /** Why the gate cannot pass yet, while a stretch of the list is unread. */
    get behind() {
        const [stretch] = this.unread;
        if (!stretch)
            return undefined;
        return `the operations list is not read back to what an earlier poll had seen: ${stoppedBy(stretch.end)}`;
    }
    /** Notes that poll number `poll` listed `operation`; whether no list had before. */
    note(operation, poll) {
        this.newestListedAt = Math.max(this.newestListedAt, apiTime(operation.created_at) ?? -Infinity);
        if (this.firstListedIn.has(operation.id))
            return false;
        this.firstListedIn.set(operation.id, poll);
        return true;
    }
    /**
     * Poll number `poll` (not the first): from the top back to what earlier polls had seen, and on
     * down to `oldestPendingAt` (within GATE_MAX_POLL_PAGES pages); then on where an earlier poll
     * stopped, GATE_MAX_CATCH_UP_PAGES pages in all. `onListed` gets every operation listed.
     */
    async read(poll, oldestPendingAt, onListed) {
        const stretches = [{ seenAt: this.newestListedAt, since: poll }, ...this.unread];
        this.unread = [];
        let pagesLeft = GATE_MAX_CATCH_UP_PAGES;
        for (const [index, stretch] of stretches.entries()) {
            const fromTop = index === 0;
            const { pages, read, stopped } = await this.readStretch(stretch, pagesLeft, {
                poll,
                oldestPendingAt: fromTop ? oldestPendingAt : Infinity,
                onListed
            });
            pagesLeft -= pages;
            if (!stopped)
                continue;
            this.unread.push({ ...stopped, seenAt: stretch.seenAt, since: stretch.since });
            if (fromTop)
                this.warnStopped(read, pages, stopped.end);
        }
    }
    /**
     * Reads `stretch` until a page gets back to what had been seen before this poll (an operation an
     * earlier poll listed, or one created before `seenAt` or the first read's horizon), and on down
     * to `oldestPendingAt` (within GATE_MAX_POLL_PAGES pages, a short page the last), at most
     * `maxPages` pages. When it stopped short of what had been seen, `stopped` says where to read on
     * (the page that gave no cursor, again) and why.
     */
    async readStretch(stretch, maxPages, { poll, oldestPendingAt, onListed }) {
        if (maxPages === 0)
            return { pages: 0, read: 0, stopped: { cursor: stretch.cursor, end: 'page cap' } };
        const seenAt = Math.max(stretch.seenAt, this.horizon);
        let pages = 0;
        let read = 0;
        let reached = false;
        let cursor = stretch.cursor;
        let asked = stretch.cursor;
        const listedBefore = (operation) => (this.firstListedIn.get(operation.id) ?? poll) < stretch.since;
        const end = await walkOperations((next) => this.readPage((asked = next ?? stretch.cursor)), {
            limit: GATE_POLL_PAGE_LIMIT,
            maxPages,
            // Only getting back ends the read: a server that caps `limit` must not hide an operation.
            lastPage: 'empty',
            onPage: (page) => {
                const { operations } = page;
                pages++;
                read += operations.length;
                cursor = operationsCursor(page) || asked;
                const last = operations.at(-1);
                reached ||= operations.some(listedBefore) || createdBefore(last, seenAt);
                for (const operation of operations)
                    onListed(operation, this.note(operation, poll));
                const pendingRead = pages >= GATE_MAX_POLL_PAGES ||
                    operations.length < GATE_POLL_PAGE_LIMIT ||
                    createdBefore(last, oldestPendingAt + 1);
                return !(reached && pendingRead);
            }
        });
        // An empty page is the list's end: nothing older is left to reach.
        const cut = !reached && end !== 'last page';
        return cut ? { pages, read, stopped: { cursor, end } } : { pages, read };
    }
    warnStopped(read, pages, end) {
        const where = SERVER_STOPS[end] ?? 'the page cap';
        this.logger.warning(`Project gate: read ${plural(read, 'operation')} listed since the previous poll in ${plural(pages, 'page')}, stopped at ${where} short of those it had seen; the next poll reads on, and the gate cannot pass till then`);
    }
}
/** Why a poll stopped short of what had been seen, as `behind` says it. */
function stoppedBy(end) {
    return end === 'page cap'
        ? `more were listed since than ${GATE_MAX_CATCH_UP_PAGES} pages of ${GATE_POLL_PAGE_LIMIT} a poll read`
        : `the API stopped the read at ${SERVER_STOPS[end]}`;
}

;// CONCATENATED MODULE: ./src/wait/project-state.ts




class ProjectState {
    projectId;
    reader;
    aside;
    /** The computes whose newest operation the first read surely reached: their history decides. */
    reached = new Set();
    firstPage = [];
    pages = 0;
    /** Set by `ended`, before the first read anew: whether the state decides what the read missed. */
    stateDecides;
    read = false;
    /** Why the gate cannot pass yet, from the state last read. */
    unsettled;
    /** Set when the branch list stopped at its cap: what the state check did not judge. */
    notJudged;
    /** `aside`: a branch whose state and computes decide nothing (the one a teardown is about to remove). */
    constructor(projectId, reader, aside) {
        this.projectId = projectId;
        this.reader = reader;
        this.aside = aside;
    }
    /** The next page of the first read. */
    page(operations) {
        if (this.pages++ === 0)
            this.firstPage = operations;
    }
    /**
     * After the first read, `end` saying why it stopped. Read whole on one page, its history decides
     * every compute; otherwise only the computes of the first page's operations newer than its end.
     */
    ended(end) {
        const whole = end === 'last page' && this.pages === 1;
        this.stateDecides = !whole;
        for (const operation of whole ? this.firstPage : newerThanPageEnd(this.firstPage)) {
            this.reached.add(operation.endpoint_id);
        }
    }
    /**
     * Reads the state anew, once the operations read are final: the first time, and then while it
     * keeps the gate open. Nothing to read when the first read was the whole list, on one page.
     */
    async readAgain() {
        if (!this.stateDecides || (this.read && !this.unsettled))
            return;
        this.read = true;
        const computes = await this.reader.listProjectComputes(this.projectId);
        const compute = computes.find((each) => each.branch_id !== this.aside && !this.reached.has(each.id) && !computeSettled(each));
        if (compute) {
            const state = truncate(compute.current_state ?? 'of no state', 40);
            const pending = compute.pending_state
                ? `, pending ${truncate(compute.pending_state, 40)}`
                : '';
            this.unsettled = `compute ${truncate(compute.id, 80)} is ${state}${pending}, and its operations were older than the read: the gate waits until it is idle or active with nothing pending`;
            return;
        }
        const { branches, cut } = await this.reader.listBranches(this.projectId, {
            unseen: "branches beyond it are not judged: the project gate's state check covers those read"
        });
        this.notJudged = cut
            ? `Project gate: its state check read ${plural(branches.length, 'branch', 'branches')} and stopped there (${cut}): a branch beyond them still changing was not judged`
            : undefined;
        const branch = branches.find((each) => each.id !== this.aside && !canBeQueried(each));
        this.unsettled = branch
            ? `branch ${truncate(branch.name, 80)} (${truncate(branch.id, 80)}) is ${phraseText(branchStatePhrase(branch))}, and the read of operations did not reach what it is doing: the gate waits until it is ready with nothing pending`
            : undefined;
    }
}

;// CONCATENATED MODULE: ./src/wait/project-gate-source.ts












/**
 * How far back the project gate's first read goes, before the newest operation it lists (the
 * operations' own clock, never the runner's or the Date header): a bound on its cost, never on the
 * verdict, since the project's state stands for what it did not read (project-state.ts). The
 * branch gate has no such bound: it reads back to its branch's history (branch-history.ts).
 */
const GATE_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/**
 * Page size of the first read (the live API accepts 1-1000). It reads back to the horizon anyway,
 * so large pages mean fewer requests for the same data.
 */
const GATE_DISCOVERY_PAGE_LIMIT = 500;
/** At most this many pages on the first read (10,000 operations), with a warning if reached. */
const GATE_MAX_DISCOVERY_PAGES = 20;
/**
 * At most this many pending operations read by id in one poll, those read longest ago first; the
 * others keep their last-seen (not final) state until their turn, so a poll's cost stays bounded
 * even with thousands in flight, and nothing can pass unread.
 */
const GATE_MAX_READS_BY_ID = 20;
/**
 * The first poll's walk: a short page does not end it, since a server that caps `limit` below what
 * was asked would hide what lies past it, in flight or not. It ends on an empty page, or where the
 * gate has read far enough back.
 */
const DISCOVERY_WALK = {
    limit: GATE_DISCOVERY_PAGE_LIMIT,
    maxPages: GATE_MAX_DISCOVERY_PAGES,
    lastPage: 'empty'
};
/**
 * The project gate: every operation of the project (or of one branch) that is in flight.
 *
 * First poll: walk the list newest first and keep every operation that is not final, whatever its
 * age, `failed` included whatever `fail_fast` says (under `fail_fast` it is a final failure, never
 * "nothing in flight"). With `branch_id` the walk goes back to the branch's creation, past the
 * newest operation of each of its computes (branch-history.ts); on the whole project, to
 * GATE_LOOKBACK_MS (24 h) before the newest operation listed, on the operations' own timestamps, so
 * that no clock can hide work, and the project's computes and branches stand for the rest. What ended in failure before the gate started is judged too
 * (recent-failures.ts): on the gated branch an `error` still the newest on its compute fails the
 * gate, whatever its age; on the whole project a recent one is a warning. An operation whose
 * `created_at` cannot be read is waited on, never dropped.
 *
 * Later polls: read from the newest operation back to what earlier polls had seen, however many
 * were listed since (at most GATE_MAX_CATCH_UP_PAGES pages a poll: past that, the next poll reads
 * on from where this one stopped, and until it has the gate cannot pass), and on down to the oldest
 * one still pending (within GATE_MAX_POLL_PAGES pages); pending operations beyond that are read by id
 * (GATE_MAX_READS_BY_ID a poll). Operations never seen before are waited on too, even if they were
 * already final when first seen (a failure among them fails the gate).
 */
class ProjectGateSource {
    options;
    tracked = new Map();
    /** What the lists have shown, and how later polls read them back (later-polls.ts). */
    laterPolls;
    /** The poll in which a pending operation was last read by id. */
    readByIdAt = new Map();
    completedPolls = 0;
    warnedUnreadableTime = false;
    /** The branch the gate is narrowed to (gated-branch.ts), read anew once its operations are final. */
    gated;
    /** With `branch_id`: how far back the first read goes, and what stands for the rest. */
    history;
    /** Without `branch_id`: what stands for what the first read did not reach. */
    projectState;
    recentFailures = [];
    constructor(options) {
        this.options = options;
        const { reader, projectId, logger } = options;
        if (options.branch) {
            const { branch, reader: branches } = options.branch;
            this.gated = new GatedBranch(branch, () => branches.getBranch(projectId, branch.id), logger);
        }
        else
            this.projectState = new ProjectState(projectId, options.project, options.asideBranch);
        this.laterPolls = new LaterPolls((cursor) => reader.listOperations(projectId, { limit: GATE_POLL_PAGE_LIMIT, cursor }), logger);
    }
    get behind() {
        return this.laterPolls.behind ?? this.history?.unsettled ?? this.projectState?.unsettled;
    }
    get historyNotJudged() {
        return this.history?.notJudged ?? this.projectState?.notJudged;
    }
    /** The branch as last read: its `current_state` decides, once its operations are final. */
    get branch() {
        return this.gated?.branch;
    }
    get operations() {
        return [...this.tracked.values()].sort((a, b) => sortTime(b) - sortTime(a) || 0);
    }
    async poll() {
        if (this.completedPolls === 0)
            await this.discover();
        else
            await this.refresh();
        await this.readState();
        this.completedPolls++;
    }
    /**
     * The state read anew in every poll that finds the operations final and none failed for good:
     * the gated branch and its computes whose history was not read, or, on the whole project, what
     * its read did not reach. A final failure is the verdict already, which no state could change.
     */
    async readState() {
        const { isDone, hasFailed } = this.options.finality;
        const tracked = [...this.tracked.values()];
        if (tracked.some((operation) => !isDone(operation) || hasFailed(operation)))
            return;
        await this.gated?.read(this.completedPolls === 0);
        await this.history?.readAgain();
        await this.projectState?.readAgain();
    }
    async discover() {
        const history = (this.history = await this.branchHistory());
        const read = { newest: -Infinity, oldest: Infinity };
        const relevant = [];
        const { reader, projectId } = this.options;
        const readPage = (cursor) => reader.listOperations(projectId, { limit: DISCOVERY_WALK.limit, cursor });
        const end = await walkOperations(readPage, {
            ...DISCOVERY_WALK,
            onPage: (page) => {
                history?.page(page.operations);
                this.projectState?.page(page.operations);
                for (const operation of page.operations) {
                    this.laterPolls.note(operation, 0);
                    const time = this.createdAt(operation);
                    if (time !== undefined) {
                        read.newest = Math.max(read.newest, time);
                        read.oldest = Math.min(read.oldest, time);
                    }
                    if (!this.isRelevant(operation))
                        continue;
                    relevant.push(operation);
                    if (isUnfinished(operation.status))
                        this.tracked.set(operation.id, operation);
                }
                if (history)
                    return !history.complete;
                return !createdBefore(page.operations.at(-1), read.newest - GATE_LOOKBACK_MS);
            }
        });
        // Measured once the answers have set the API's clock: a runner ahead of it would age them all.
        const recent = new RecentOperations(this.startedOnApiClock());
        for (const operation of relevant)
            recent.add(operation);
        this.judgeRecentFailures(recent);
        const unjudged = history?.ended(end, this.laterPolls.listedCount, read.oldest);
        if (unjudged)
            throw new ResponseFormatError(operationsEndpoint(projectId), unjudged);
        if (!this.projectState)
            return;
        this.laterPolls.horizon = read.newest - GATE_LOOKBACK_MS;
        this.projectState.ended(end);
        this.warnStoppedShort(end, read);
    }
    /** With `branch_id`: its computes, as the API lists them, before the first read. */
    async branchHistory() {
        if (!this.options.branch)
            return undefined;
        const { projectId, logger } = this.options;
        const { branch, reader } = this.options.branch;
        const readComputes = () => reader.listComputes(projectId, branch.id);
        return new BranchHistory(branch, await readComputes(), readComputes, logger);
    }
    /** The first read of the whole project, stopped short of its 24 h by the API or the page cap. */
    warnStoppedShort(end, read) {
        const { logger } = this.options;
        const stop = SERVER_STOPS[end];
        if (stop) {
            return logger.warning(`Project gate: the API's list of operations stopped at ${stop}; the project's computes and branches stand for what lies past it`);
        }
        if (end !== 'page cap')
            return;
        const span = read.oldest <= read.newest
            ? `, created from ${new Date(read.oldest).toISOString()} to ${new Date(read.newest).toISOString()}`
            : '';
        logger.warning(`Project gate: read ${plural(this.laterPolls.listedCount, 'operation')} in ${GATE_MAX_DISCOVERY_PAGES} pages${span}, and stopped there (the page cap); older ones, up to ${GATE_LOOKBACK_MS / 3_600_000} h before the newest, were not read: the project's computes and branches stand for them, each idle or ready with nothing pending`);
    }
    /**
     * When the gate started, on the API's clock (its first answer's Date header has set it), or the
     * runner's where that is earlier and they disagree (`earliestWallNow`: a Date header ahead hides
     * no recent failure and ages none): the window of what ended before it is measured from there
     * (warnings only, never a verdict).
     */
    startedOnApiClock() {
        const { clock } = this.options;
        return (0,domain_clock/* earliestWallNow */.M7)(clock) - (clock.now() - this.options.startedAt);
    }
    /** Recent failures: those that fail the gate are waited on (they end it), the rest warned about. */
    judgeRecentFailures(recent) {
        const { branch, clock } = this.options;
        this.recentFailures = recent.failures(branch !== undefined, !!clock.disagreementMs?.());
        for (const { operation, failsGate } of this.recentFailures) {
            if (failsGate)
                this.tracked.set(operation.id, operation);
        }
        const { logger, failuresWhy } = this.options;
        warnRecentFailures(this.recentFailures, logger, failuresWhy);
    }
    /**
     * A later poll: from the top back to what earlier polls had seen, and on where an earlier poll
     * stopped at its page cap (later-polls.ts); pending operations no page showed are read by id.
     * With nothing pending it still reads the top (there is a poll only while the branch keeps the
     * gate open): an operation started meanwhile keeps the gate open too.
     */
    async refresh() {
        const { reader, projectId, finality } = this.options;
        const pending = [...this.tracked.values()].filter((operation) => !finality.isDone(operation));
        const times = pending.map((operation) => this.createdAt(operation));
        const oldestPendingAt = times.includes(undefined)
            ? -Infinity
            : Math.min(Infinity, ...times);
        const listed = new Set();
        await this.laterPolls.read(this.completedPolls, oldestPendingAt, (operation, isNew) => {
            listed.add(operation.id);
            if (this.tracked.has(operation.id) || (isNew && this.isRelevant(operation))) {
                this.tracked.set(operation.id, operation);
            }
        });
        const unlisted = pending
            .filter((operation) => !listed.has(operation.id))
            .sort((a, b) => (this.readByIdAt.get(a.id) ?? 0) - (this.readByIdAt.get(b.id) ?? 0))
            .slice(0, GATE_MAX_READS_BY_ID);
        for (const operation of unlisted) {
            this.readByIdAt.set(operation.id, this.completedPolls);
            this.tracked.set(operation.id, await reader.getOperation(projectId, operation.id));
        }
    }
    isRelevant(operation) {
        const branchId = this.options.branch?.branch.id;
        return !branchId || operation.branch_id === branchId;
    }
    /** The creation time, or undefined (warned about once) when the API's text cannot be read. */
    createdAt(operation) {
        const time = apiTime(operation.created_at);
        if (time === undefined && !this.warnedUnreadableTime) {
            this.warnedUnreadableTime = true;
            this.options.logger.warning(`Project gate: operation ${operation.id} has no readable created_at ("${operation.created_at ?? ''}"); such operations count as recent and are waited on`);
        }
        return time;
    }
}
/** Newest first; an operation whose time cannot be read sorts as the newest. */
function sortTime(operation) {
    return apiTime(operation.created_at) ?? Infinity;
}

;// CONCATENATED MODULE: ./src/wait/wait-for-operations.ts






/** Status changes logged per poll; more are counted in one line (the summary has them all). */
const MAX_CHANGES_LOGGED = 20;
/** Distinct unknown statuses warned about. */
const MAX_UNKNOWN_WARNINGS = 5;
/**
 * The log of a wait: each status change once, with the time since the start (at most
 * MAX_CHANGES_LOGGED a poll, then a count), and each unknown status warned about once.
 */
class StatusLog {
    logger;
    elapsed;
    lastStatus = new Map();
    warnedStatuses = new Set();
    constructor(logger, elapsed) {
        this.logger = logger;
        this.elapsed = elapsed;
    }
    record(operations) {
        let changes = 0;
        for (const operation of operations) {
            const previous = this.lastStatus.get(operation.id);
            if (previous !== operation.status) {
                this.lastStatus.set(operation.id, operation.status);
                if (++changes <= MAX_CHANGES_LOGGED) {
                    this.logger.info(`[${this.elapsed()}] ${wait_for_operations_describe(operation)}: ${previous ? `${previous} → ` : ''}${truncate(operation.status, 40)}`);
                }
            }
            this.warnIfUnknown(operation.status);
        }
        if (changes > MAX_CHANGES_LOGGED) {
            this.logger.info(`[${this.elapsed()}] … and ${changes - MAX_CHANGES_LOGGED} more status changes`);
        }
    }
    warnIfUnknown(status) {
        if (classifyStatus(status) !== 'unknown' || this.warnedStatuses.has(status))
            return;
        this.warnedStatuses.add(status);
        if (this.warnedStatuses.size <= MAX_UNKNOWN_WARNINGS) {
            this.logger.warning(`Unknown operation status "${truncate(status, 40)}"; treating it as in flight`);
        }
    }
}
/** When each operation's last-seen state was read: a read gives it a new object. */
class ReadTimes {
    clock;
    readAt = new Map();
    states = new WeakSet();
    constructor(clock) {
        this.clock = clock;
    }
    stamp(operations) {
        for (const operation of operations) {
            if (this.states.has(operation))
                continue;
            this.states.add(operation);
            this.readAt.set(operation.id, (0,domain_clock/* earliestWallNow */.M7)(this.clock));
        }
    }
    /** The read times, and whether the clocks disagreed (then each is only the earliest). */
    times() {
        const clocks = this.clock.disagreementMs?.() ? { clocksDisagree: true } : {};
        return { readAt: this.readAt, ...clocks };
    }
}
/**
 * Polls `source` until every operation is final, one is a final failure, or the deadline passes.
 * The first read is immediate; after each poll the loop waits as long as the pace says (never past
 * the deadline). An error no retry could help (a key revoked, an operation gone) ends the wait with
 * the outcome `error` and what was read until then, never throws.
 */
async function waitForOperations(options, { source, pace, clock, logger, signal }) {
    const elapsed = () => `+${formatDuration(clock.now() - options.startedAt)}`;
    const reads = new ReadTimes(clock);
    const statusLog = new StatusLog(logger, elapsed);
    const finality = finalityOf(options.failFast);
    let polls = 0;
    /** What was read until now, stamped. */
    const seen = () => {
        reads.stamp(source.operations);
        const observed = source.completedPolls > 0;
        const timing = { ...reads.times(), elapsedMs: clock.now() - options.startedAt };
        return { operations: source.operations, polls, observed, ...timing };
    };
    const finish = (outcome, reason, noRetryFits) => {
        const result = seen();
        logger.info(`[${elapsed()}] ${endingOf(outcome, options, result.observed, reason)}`);
        const why = noRetryFits ? { reason, noRetryFits } : reason ? { reason } : {};
        return { outcome, ...result, ...why };
    };
    const cancelled = () => finish('cancelled', signal.reason.message);
    for (;;) {
        try {
            polls++;
            await source.poll();
        }
        catch (error) {
            if (signal?.aborted)
                return cancelled();
            if (error instanceof DeadlineExceededError) {
                return finish('timeout', error.message, error.noRetryFits);
            }
            return { outcome: 'error', error, ...seen() };
        }
        pace.onPollDone();
        const operations = source.operations;
        reads.stamp(operations);
        statusLog.record(operations);
        const verdict = verdictOf(operations, source, options.untilIdle, finality);
        if (verdict)
            return finish(verdict);
        if (!options.wait)
            return finish('pending', source.behind);
        const remaining = options.deadline - clock.now();
        if (remaining <= 0)
            return finish('timeout', source.behind);
        try {
            await clock.sleep(Math.min(pace.nextPollDelayMs(), remaining), signal);
        }
        catch (error) {
            if (signal?.aborted)
                return cancelled();
            throw error;
        }
    }
}
/** What a poll's read decides: a failure, a pass, or nothing yet. */
function verdictOf(operations, source, untilIdle, { isDone, hasFailed }) {
    if (!untilIdle && operations.some(hasFailed))
        return 'failure';
    const branchOpen = source.branch !== undefined && !canBeQueried(source.branch);
    // Never a pass on a read that did not get back to what an earlier poll had seen.
    if (operations.every(isDone) && !branchOpen && !source.behind)
        return 'success';
    return undefined;
}
/** The wait's last log line: its outcome, or what comes next after a success. */
function endingOf(outcome, { next }, observed, reason) {
    const unread = observed ? '' : ', before the operations could be read';
    return outcome === 'success' && next
        ? next
        : `outcome: ${outcome}${unread}${reason ? ` (${reason})` : ''}`;
}
function wait_for_operations_describe(operation) {
    const parts = [operation.id, operation.action, operation.branch_id && `on ${operation.branch_id}`];
    return parts
        .filter(Boolean)
        .map((part) => truncate(part, 80))
        .join(' ');
}

;// CONCATENATED MODULE: ./src/gate/planned-wait.ts
/*
 * The wait the plan covers: its source of operations (those `operation_id` names, one branch, the
 * whole project, or the whole project until idle), and the wait itself, its result in the report.
 */




/**
 * The wait for the operations; throws the error that cut it short, once what was read is in the
 * report.
 */
async function waitFor(source, { inputs, wait: planned }, report, { clock, logger, signal, pace, stepStartedAt, deadline }) {
    const wait = await waitForOperations({
        wait: inputs.wait,
        startedAt: stepStartedAt,
        deadline,
        failFast: planned.failFast,
        untilIdle: planned.covers === 'idle project',
        next: planned.next
    }, { source, pace, clock, logger, signal });
    if (wait.outcome === 'error') {
        // What was read before the error stays, for the outputs as for the summary.
        if (wait.observed || wait.operations.length > 0)
            report.wait = wait;
        throw wait.error;
    }
    report.wait = wait;
    report.outcome = wait.outcome;
    if (wait.noRetryFits)
        report.noRetryFits = wait.noRetryFits;
}
/**
 * What the plan's wait covers: the operations named by `operation_id`, or the project gate, on one
 * branch, or on the whole project (until idle, for a step's sake).
 */
function plannedSource({ inputs, wait }, gated, { client, logger, clock }) {
    const finality = finalityOf(wait.failFast);
    if (wait.covers === 'operations') {
        return new OperationIdsSource(client.operations, gated.projectId, inputs.operationIds, finality.isDone);
    }
    return new ProjectGateSource({
        ...gated,
        reader: client.operations,
        project: {
            listProjectComputes: (projectId) => client.computes.listProjectComputes(projectId),
            listBranches: (projectId, reading) => client.branches.listBranches(projectId, reading)
        },
        branch: gated.branch && wait.covers === 'branch'
            ? { branch: gated.branch, reader: client.branches }
            : undefined,
        asideBranch: wait.covers === 'idle project' ? gated.branch?.id : undefined,
        finality,
        failuresWhy: wait.idle?.failuresWhy,
        clock,
        logger
    });
}

;// CONCATENATED MODULE: ./src/gate/run-error.ts
/*
 * The run cut short by an error (listing projects, resolving the branch, an error no retry could
 * help in a poll): its outcome and its message in the report, worded as the front end names inputs.
 */

/** The run cut short by `error`: its outcome, and its message as the front end names inputs. */
function recordError(report, error, { signal, naming, redactor }) {
    report.outcome = signal.aborted
        ? 'cancelled'
        : error instanceof DeadlineExceededError
            ? 'timeout'
            : 'error';
    const message = error instanceof WordedError
        ? error.worded(naming)
        : error instanceof Error
            ? error.message
            : String(error);
    const noRetryFits = report.outcome === 'timeout' ? error.noRetryFits : undefined;
    if (noRetryFits)
        report.noRetryFits = noRetryFits;
    // Gave up because no retry fitted: the message says so with the numbers (`no retry fits …`).
    const text = report.outcome !== 'timeout'
        ? message
        : noRetryFits
            ? message.charAt(0).toUpperCase() + message.slice(1)
            : `timeout ran out: ${message}`;
    report.error = redactor.redact(text);
    if (error instanceof InputError)
        report.errorCause = 'input';
}

;// CONCATENATED MODULE: ./src/gate/gate.ts
/*
 * The whole job, from a plan (plan.ts) to a report: the plan's steps before the wait (list
 * projects), the branch (branch-to-gate.ts), the wait the plan covers, then its steps after it (the
 * database, the teardown's check), and the plan's ending. It touches neither the runner nor GitHub
 * (run() in main.ts publishes what it returns), so a test can run it end to end with fakes. Every
 * error ends here as the report's outcome and message (run-error.ts).
 */







/** Runs the plan; never throws. */
async function gate(plan, dependencies) {
    const { inputs } = plan;
    // The runner's clock, its wall time the API's (its answers' Date header): what is compared with
    // the API's timestamps is measured on the API's clock; deadlines stay on the monotonic one.
    const clock = new ApiClock(dependencies.clock, dependencies.logger);
    const pace = new Pace(inputs.intervalMs, clock, dependencies.logger, dependencies.random);
    // One deadline for the whole run: listing, every poll, retry and back-off, the steps after.
    const stepStartedAt = dependencies.stepStartedAt ?? clock.now();
    // What ended just before this moment is judged too (on the API's clock, once it has answered).
    const startedAt = clock.now();
    const deadline = stepStartedAt + inputs.timeoutMs;
    const client = apiClientOf(inputs, readsOnce(plan), { ...dependencies, clock, pace, deadline });
    const report = {
        // Every path below sets the outcome (the wait, a step run alone, the teardown's end, an error);
        // one that did not would fail closed.
        outcome: 'error',
        requests: client.stats,
        gate: plan.gate,
        failFast: plan.wait.failFast,
        waitPlan: plan.stepsAlone ? undefined : plan.wait,
        pace
    };
    const context = { ...dependencies, clock, client, pace, stepStartedAt, deadline };
    for (const step of plan.steps)
        step.start?.(inputs, report);
    let source;
    try {
        for (const step of stepsIn('before-wait', plan))
            await step.run(inputs, report, context);
        if (inputs.projectId && !plan.stepsAlone) {
            source = await gateProject(plan, inputs.projectId, startedAt, report, context);
        }
    }
    catch (error) {
        // Cut short: listing projects, resolving the branch, or an error no retry could help in a poll.
        recordError(report, error, dependencies);
    }
    plan.ending?.(report, dependencies.logger);
    // The whole run, the steps after the wait included.
    report.elapsedMs = clock.now() - stepStartedAt;
    if (source?.branch)
        report.branch = source.branch;
    if (source?.recentFailures?.length)
        report.recentFailures = source.recentFailures;
    report.historyNotJudged = source?.historyNotJudged;
    return report;
}
function stepsIn(phase, plan) {
    return plan.steps.filter((step) => step.section.phase === phase);
}
/**
 * The project gate: its branch resolved, the wait, then, when it succeeded, each step after it;
 * the source of operations, once read. Throws the error that cut it short.
 */
async function gateProject(plan, projectId, startedAt, report, context) {
    report.projectId = projectId;
    const { client, logger } = context;
    const branch = await branchToGate(plan, projectId, { reader: client.branches, report, logger });
    if (branch === 'gone')
        return undefined;
    const source = plannedSource(plan, { projectId, startedAt, branch }, context);
    await waitFor(source, plan, report, context);
    for (const step of stepsIn('after-wait', plan)) {
        if (report.outcome !== 'success')
            break;
        await step.run(plan.inputs, report, { ...context, projectId, branch });
    }
    return source;
}

;// CONCATENATED MODULE: ./src/domain/core-inputs.ts
/*
 * The core's inputs in the input catalog (src/gate/input-catalog.ts puts them with the steps'): the
 * key, what to gate and how to wait, each with its typed name, its schema, its flag and its help.
 */


/** What to gate: the key, the project, its operations or one branch. */
const CORE_INPUTS = {
    api_key: {
        typed: 'apiKey',
        schema: () => apiKeyInput,
        secret: 'text',
        command: { env: 'NEON_API_KEY', file: 'api-key-file' },
        help: {
            part: 'intro',
            text: [
                'The API key comes from NEON_API_KEY, or from --api-key-file PATH (- reads standard input);',
                'never from a flag, which ps and shell history would show.'
            ]
        },
        docs: {
            summary: 'API key; masked before anything else runs',
            description: "API key (a secret), sent as 'Authorization: Bearer'; masked before anything runs."
        }
    },
    project_id: {
        typed: 'projectId',
        schema: (naming) => refusingEmpty(idInput(ID_PATTERN, 'a project id matching ^[a-z0-9-]{1,60}$'), `leave ${naming.mention('project_id')} out with ${naming.enabled('list_projects')} to only list the projects`),
        refusesEmpty: true,
        command: { flag: { name: 'project-id', gate: true }, env: 'NEON_PROJECT_ID' },
        help: { part: 'what', flags: [['--project-id ID', 'the project (default: NEON_PROJECT_ID)']] },
        docs: {
            default: NOT_GIVEN,
            summary: 'The project; required except for listing projects',
            description: 'The project to work on; required for everything except list_projects. Its default, (not given), means left out.'
        }
    },
    operation_id: {
        typed: 'operationIds',
        schema: (naming) => refusingEmpty(operationIdsInput(naming.mention('operation_id'), `${naming.mention('project_id')}, ${naming.mention('branch_id')}`), `leave ${naming.mention('operation_id')} out to gate the project or a branch`).transform((ids) => ids ?? []),
        refusesEmpty: true,
        command: { flag: { name: 'operation-id', multiple: true, gate: true } },
        help: {
            part: 'what',
            flags: [
                ['--operation-id UUID', 'only these operations (repeat it, or separate ids by commas)']
            ]
        },
        docs: {
            default: NOT_GIVEN,
            summary: 'At most 40 operation ids (UUIDs), by commas, spaces or lines',
            description: 'One or more operation ids (UUIDs, at most 40) separated by commas, spaces or new lines; without it the whole project is gated. Its default, (not given), means left out.'
        }
    },
    branch_id: {
        typed: 'branchId',
        schema: (naming) => refusingEmpty(idInput(BRANCH_PATTERN, 'a branch id (br-…) or a branch name of at most 256 visible characters'), `leave ${naming.mention('branch_id')} out to gate the whole project`),
        refusesEmpty: true,
        command: { flag: { name: 'branch-id', gate: true } },
        help: {
            part: 'what',
            flags: [
                [
                    '--branch-id BRANCH',
                    "only this branch's operations (an id, br-..., or a name); then",
                    'also wait until the branch is ready'
                ]
            ]
        },
        docs: {
            default: NOT_GIVEN,
            summary: 'The branch gate: a branch id or name; waits until `ready`',
            description: 'With project_id and no operation_id, only operations on this branch count: a branch id (br-...) or a branch name (main, preview/pr-12), resolved and checked before the first poll across every page of the search; a name that fits no branch or several fails the step. Once its operations are final, the gate also waits until the branch is ready (current_state ready, no pending_state; archived passes with a warning). Its default, (not given), means left out.'
        }
    },
    wait: {
        typed: 'wait',
        schema: () => booleanInput(true),
        command: { flag: { name: 'wait', boolean: true } },
        help: {
            part: 'how',
            flags: [
                [
                    '--no-wait',
                    'read once and report, do not wait: exit 75 while work is in',
                    'flight; an API that does not answer ends it within 3',
                    'intervals, exit 3'
                ]
            ]
        },
        docs: {
            default: 'true',
            summary: '`false`: read once and report, do not wait',
            description: "true: poll until every operation is final; false: read once and report (a 429's waits do not count: a rate limit is ridden out until timeout)."
        }
    },
    interval: {
        typed: 'intervalMs',
        schema: () => durationInput('5s', MAX_INTERVAL_MS, '1h'),
        command: { flag: { name: 'interval' } },
        help: {
            part: 'how',
            flags: [['--interval DURATION', 'time between polls: 5, 5s, 90s, 1m (default 5s)']]
        },
        docs: {
            default: '5',
            summary: 'Time between polls: `5`, `5s`, `90s`, `1m`; 1 s to 1 h',
            description: 'Time between polls, in seconds or with a unit (5, 5s, 90s, 1m); 1 second to 1 hour. Slower for a while after HTTP 429s.'
        }
    },
    timeout: {
        typed: 'timeoutMs',
        schema: () => timeoutInput(quotedAsGiven),
        command: { flag: { name: 'timeout' } },
        help: {
            part: 'how',
            flags: [['--timeout DURATION', 'longest wait: 90s, 15m, 2h, 5d at most (default 10m)']]
        },
        docs: {
            default: '10m',
            summary: 'Longest total wait, same syntax or `5d`; 1 s to 5 days',
            description: 'Longest total wait, same syntax as interval, or days (5d); 1 second to 5 days. The wait ends within about a second past it; a pull-request comment, written after, has at most 10 s more.'
        }
    },
    fail_fast: {
        typed: 'failFast',
        schema: () => booleanInput(false),
        command: { flag: { name: 'fail-fast', boolean: true } },
        help: { part: 'how', flags: [['--fail-fast', 'treat the first "failed" status as final']] },
        docs: {
            default: 'false',
            summary: 'Fail on the first `failed` instead of awaiting its retry',
            description: 'Treat the first "failed" status as final instead of awaiting the control plane\'s retry.'
        }
    },
    api_host: {
        typed: 'apiHost',
        schema: () => apiHostInput,
        command: { flag: { name: 'api-host' } },
        help: { part: 'how', flags: [['--api-host URL', `the API (default ${DEFAULT_API_HOST})`]] },
        docs: {
            default: DEFAULT_API_HOST,
            summary: 'Base address (`http://` only to loopback)',
            description: 'Base address of the API; https:// only, plain http:// for loopback hosts.'
        }
    }
};

;// CONCATENATED MODULE: ./src/steps/sweep/sweep-input.ts




/** Its inputs in the catalog. */
const SWEEP_INPUTS = {
    sweep: {
        typed: 'sweep',
        schema: (naming) => refusingEmpty(sweepPatternInput, `leave ${naming.mention('sweep')} out for another gate`),
        refusesEmpty: true,
        command: { flag: { name: 'match', gate: true } },
        help: {
            part: 'what',
            flags: [
                [
                    '--match PATTERN',
                    'with neon-gate sweep: list the stale branches whose names match',
                    'PATTERN: * within a name part (preview/*), {pr} for a',
                    'pull-request number; reads every page of branches, waits for',
                    'nothing, deletes nothing'
                ]
            ]
        },
        docs: {
            default: NOT_GIVEN,
            summary: 'A branch-name pattern: list its stale branches (a sweep)',
            description: 'A branch-name pattern (preview/* or preview/pr-{pr}): list every matching branch that is stale, and wait for nothing. * matches within one name part; {pr} stands for a pull-request number, whose state is read from GitHub. Needs project_id; see docs/sweep.md.'
        }
    },
    older_than: {
        typed: 'olderThanMs',
        // Not given stays undefined (a sweep reads it as DEFAULT_OLDER_THAN_MS): given without a sweep
        // is refused (checkWithoutSweep).
        schema: (naming) => refusingEmpty(olderThanInput, `leave ${naming.mention('older_than')} out for 7d`),
        refusesEmpty: true,
        command: { flag: { name: 'older-than' } },
        help: {
            part: 'what',
            flags: [['--older-than AGE', 'with sweep: stale after this long without activity (7d)']]
        },
        docs: {
            default: NOT_GIVEN,
            summary: 'With `sweep`: stale after this long inactive; not given: 7d',
            description: 'With sweep: a matching branch with no activity for this long is stale. A number with a unit: m, h, d or w (7d, 36h, 2w). Its default, (not given), means 7d. It fails the step given without sweep.'
        }
    },
    fail_on_stale: {
        typed: 'failOnStale',
        schema: () => booleanInput(false),
        command: { flag: { name: 'fail-on-stale', boolean: true } },
        help: {
            part: 'what',
            flags: [
                [
                    '--fail-on-stale',
                    'with sweep: exit 1 when a stale branch is found, and 3 when some',
                    'branch could not be judged or the list was cut'
                ]
            ]
        },
        docs: {
            default: 'false',
            summary: 'With `sweep`: fail while a stale branch is found',
            description: 'With sweep: the outcome is failure while any stale branch is found. With none found, a branch that could not be judged or a list cut at its page cap is an error, never a pass. True without sweep fails the step.'
        }
    }
};
/** What each input a sweep cannot take would ask for instead. */
const NOT_WITH_SWEEP = {
    branch_id: 'a sweep reads every branch that matches; it gates none',
    operation_id: 'a sweep waits for no operation',
    before: 'a sweep only lists; the teardown check is a gate of its own',
    database_url: 'a sweep queries no database',
    list_projects: 'a sweep reads the branches of one project'
};
/** A sweep needs its project, and none of the inputs of another gate. */
function checkSweep(inputs, ctx, { mention }) {
    if (!inputs.project_id) {
        ctx.addIssue({
            code: 'custom',
            path: ['project_id'],
            message: `required with ${mention('sweep')}; give the project whose branches to sweep`
        });
    }
    for (const [name, why] of Object.entries(NOT_WITH_SWEEP)) {
        const value = inputs[name];
        if (!value || (Array.isArray(value) && value.length === 0))
            continue;
        ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `cannot be combined with ${mention('sweep')}: ${why}; leave it out`
        });
    }
}
/**
 * The sweep's own inputs without a sweep (review L3): `older_than` given, or `fail_on_stale` true.
 * Refused, never ignored: a sweep forgotten (`--older-than 7d --fail-on-stale` without `sweep`) would
 * run another gate, which passes. `fail_on_stale: false` asks for nothing (it is the default, which
 * the action cannot tell from a value given).
 */
function checkWithoutSweep(inputs, ctx, { mention }) {
    const given = { older_than: inputs.older_than !== undefined, fail_on_stale: inputs.fail_on_stale };
    for (const [name, isGiven] of Object.entries(given)) {
        if (!isGiven)
            continue;
        ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `only a sweep reads it, and without ${mention('sweep')} none runs: another gate would run and could pass; give ${mention('sweep')}, or leave it out`
        });
    }
}
/** What a sweep ignores, worth a warning. */
function ignoredBySweep(inputs, { mention }) {
    if (inputs.sweep && inputs.failFast) {
        return [
            `${mention('fail_fast')} is ignored with ${mention('sweep')}: a sweep waits for nothing`
        ];
    }
    return [];
}

;// CONCATENATED MODULE: ./src/steps/teardown/teardown-action.ts
/*
 * `before`: the teardown a gate runs ahead of. The step's hook makes the gate's plan wait for the
 * whole project to be idle (teardown-step.ts); what it then checks and says is this folder's.
 */
const TEARDOWN_ACTIONS = ['delete', 'reset'];

;// CONCATENATED MODULE: ./src/steps/teardown/teardown-input.ts
/*
 * The teardown's input, `before`: its entry in the input catalog (what it accepts), what it needs
 * beside it, and what it makes the gate ignore.
 */




/** The teardown to check for. */
const teardownAction = schemas_string().transform((raw, ctx) => {
    const text = raw.trim();
    const action = TEARDOWN_ACTIONS.find((name) => name === text.toLowerCase());
    if (action)
        return action;
    // Quoted as given: a value folded in case would slip past the redactor.
    ctx.addIssue({ code: 'custom', message: `"${text}" is not one of delete, reset` });
    return NEVER;
});
/** Its input in the catalog: `before`. */
const TEARDOWN_INPUTS = {
    before: {
        typed: 'before',
        schema: (naming) => refusingEmpty(teardownAction, `leave ${naming.mention('before')} out for the gate the other inputs ask for`),
        refusesEmpty: true,
        command: { flag: { name: 'before', gate: true } },
        help: {
            part: 'what',
            flags: [
                [
                    '--before delete|reset',
                    'before a teardown of --branch-id: wait until the whole project',
                    'is idle, then check that the branch can be deleted (or reset to',
                    'its parent) now: exit 1 when something blocks it, 0 when it is',
                    'clear or, for delete, already gone'
                ]
            ]
        },
        docs: {
            default: NOT_GIVEN,
            summary: '`delete` or `reset`: can `branch_id` go now? (a teardown)',
            description: 'delete or reset (to its parent): before a teardown of branch_id, wait until the whole project is idle (not for the branch to be ready), then check that the branch can be deleted or reset now. Blocked (root, default, protected, child branches, restricted_actions) fails the step; a branch already gone passes a delete, but a name only near one (preview/12 or preview/pr-012 for preview/pr-12) fails the step. Needs project_id and branch_id; database_url and fail_fast are ignored. Its default, (not given), means left out.'
        }
    }
};
/**
 * `before` checks one branch of a project once the whole project is idle: it needs both, and no
 * operations of its own.
 */
function checkBefore(inputs, ctx, { mention }) {
    const before = `${mention('before')} ${inputs.before ?? ''}`;
    if (!inputs.project_id) {
        ctx.addIssue({
            code: 'custom',
            path: ['project_id'],
            message: `required with ${before}; give the project of the branch`
        });
    }
    if (!inputs.branch_id) {
        ctx.addIssue({
            code: 'custom',
            path: ['branch_id'],
            message: `required with ${before}; give the branch to check (an id, br-…, or its name)`
        });
    }
    if (inputs.operation_id.length > 0) {
        ctx.addIssue({
            code: 'custom',
            path: ['operation_id'],
            message: `cannot be combined with ${before}, which waits until the whole project is idle; leave it out`
        });
    }
}
/** What `before` makes the gate ignore, worth a warning. */
function ignoredBeforeTeardown(inputs, { mention }) {
    if (!inputs.before)
        return [];
    const warnings = [];
    if (inputs.database) {
        warnings.push(`${mention('database_url')} is ignored with ${mention('before')}: a branch about to be deleted or reset is not queried`);
    }
    if (inputs.failFast) {
        warnings.push(`${mention('fail_fast')} is ignored with ${mention('before')}: the gate waits until the project is idle, and a failure is no reason to stop a teardown`);
    }
    return warnings;
}

;// CONCATENATED MODULE: ./src/gate/input-catalog.ts
/*
 * The input catalog: every input of the gate, one entry each (domain/input-catalog.ts says what an
 * entry holds), the core's and each step's, in the contract's order (action.yml's). The typed
 * inputs (inputs.ts), the command's flags and help, the secrets to redact and the docs' input
 * tables (npm run docs) are derived from it.
 */






const { api_key, project_id, operation_id, branch_id, ...how } = CORE_INPUTS;
const INPUT_CATALOG = {
    api_key,
    project_id,
    operation_id,
    branch_id,
    ...PROJECTS_INPUTS,
    ...how,
    ...DATABASE_INPUTS,
    ...TEARDOWN_INPUTS,
    ...SWEEP_INPUTS
};
/** Every input by name, in the catalog's order. */
const INPUT_NAMES = Object.keys(INPUT_CATALOG);
/** Each entry, typed as an entry (the catalog's literal types are for its names). */
const inputEntries = () => Object.entries(INPUT_CATALOG);
const inputEntry = (name) => INPUT_CATALOG[name];
/**
 * action.yml's default when it is a value (`false`, `10m`, the API's address). The runner sets it
 * only when the workflow does not give the input, so given as '' or white space alone (an
 * expression that came out empty), the input is an error, never this default.
 */
function defaultValue(name) {
    const value = Object.hasOwn(INPUT_CATALOG, name) && inputEntry(name).docs.default;
    return value && value !== NOT_GIVEN ? value : undefined;
}
/**
 * Given empty, an input error (`refusesEmpty`, or a default that is a value): its "not given" is
 * undefined, never ''.
 */
const refusesEmpty = (name) => Object.hasOwn(INPUT_CATALOG, name) &&
    (inputEntry(name).refusesEmpty === true || defaultValue(name) !== undefined);

;// CONCATENATED MODULE: ./src/gate/inputs.ts
/*
 * The gate's inputs, one schema for both front ends: what each accepts, its default and its
 * problems, worded with the names the front end gives them (InputNaming). A front end's own inputs
 * (the action's for the pull request) are its own schema, checked beside these (OwnInputs).
 */






/** Each input of the catalog on its own: its schema, worded as the front end names inputs. */
function inputFields(naming) {
    return Object.fromEntries(INPUT_NAMES.map((name) => [name, inputField(name, naming)]));
}
/**
 * An input's schema; with a default that is a value, given empty or as white space alone it is an
 * input error, and not given (undefined) it is that default.
 */
function inputField(name, naming) {
    const schema = INPUT_CATALOG[name].schema(naming);
    const value = defaultValue(name);
    if (value === undefined)
        return schema;
    return refusingEmpty(schema, `leave ${naming.mention(name)} out for ${value}`).transform((typed) => typed ?? schema.parse(value));
}
/** What the inputs must be together. */
function checkTogether(inputs, ctx, naming) {
    if (inputs.sweep)
        return checkSweep(inputs, ctx, naming);
    checkWithoutSweep(inputs, ctx, naming);
    if (inputs.before)
        return checkBefore(inputs, ctx, naming);
    if (inputs.operation_id.length > 0 && !inputs.project_id) {
        ctx.addIssue({
            code: 'custom',
            path: ['project_id'],
            message: `required with ${naming.mention('operation_id')}; give the project the operations belong to`
        });
    }
    checkIgnoredToTheGatesLoss(inputs, ctx, naming);
    if (!inputs.project_id && !inputs.list_projects && inputs.operation_id.length === 0) {
        ctx.addIssue({
            code: 'custom',
            path: ['project_id'],
            message: `required; give ${naming.mention('project_id')} to wait for operations, or set ${naming.enabled('list_projects')}`
        });
    }
}
/**
 * An input that another would make the gate ignore, to its loss, is refused rather than warned
 * about: `branch_id` beside `operation_id` (the branch's readiness would go unchecked), and a gate's
 * input beside `list_projects` with no project (only the projects would be listed, and exit 0).
 */
function checkIgnoredToTheGatesLoss(inputs, ctx, { mention, enabled }) {
    if (inputs.branch_id && inputs.operation_id.length > 0) {
        ctx.addIssue({
            code: 'custom',
            path: ['branch_id'],
            message: `cannot be combined with ${mention('operation_id')}: only the listed operations would be waited for, and the branch's readiness never checked; give ${mention('branch_id')} alone to gate the branch, or ${mention('operation_id')} alone`
        });
    }
    if (inputs.project_id || !inputs.list_projects)
        return;
    const unchecked = {
        branch_id: inputs.branch_id && 'the branch would never be checked',
        database_url: inputs.database_url && 'the database would never be queried'
    };
    for (const [name, loss] of Object.entries(unchecked)) {
        if (!loss)
            continue;
        ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `needs ${mention('project_id')}: with ${enabled('list_projects')} and no project, only the projects are listed and ${loss}; give the project, or leave ${mention(name)} out`
        });
    }
}
function inputsSchema(naming) {
    return object(inputFields(naming))
        .superRefine((inputs, ctx) => checkTogether(inputs, ctx, naming))
        .transform((inputs) => Object.fromEntries(INPUT_NAMES.map((name) => [INPUT_CATALOG[name].typed, inputs[name]])));
}
/**
 * Inputs that are accepted but ignored in this combination, worth a warning: only those whose
 * absence takes no check away (parseInputs refuses the others).
 */
function ignoredInputWarnings(inputs, naming) {
    const { mention } = naming;
    const warnings = [...ignoredBeforeTeardown(inputs, naming), ...ignoredBySweep(inputs, naming)];
    if (inputs.orgId && !inputs.listProjects) {
        warnings.push(`${mention('org_id')} is ignored without ${naming.enabled('list_projects')}`);
    }
    return warnings;
}
/**
 * Reads and validates every input (with `own`, the front end's own too) before any request; an
 * input `readInput` gives no value for (undefined) is not given. Throws one InputError that names
 * each bad input as its front end calls it, and what it accepts.
 */
function parseInputs(readInput, naming, own) {
    const read = (names) => Object.fromEntries(names.map((name) => {
        const value = readInput(name);
        // Not given: undefined where an empty value is refused, else '' as before.
        return [name, value ?? (refusesEmpty(name) ? undefined : '')];
    }));
    const shared = inputsSchema(naming).safeParse(read(INPUT_NAMES));
    const frontEnds = own?.schema.safeParse(read(own.names));
    const problems = [shared, frontEnds].flatMap((parsed) => parsed ? problemsOf(parsed, naming) : []);
    if (problems.length > 0 || !shared.success)
        throw invalidInput(problems);
    return { ...shared.data, ...frontEnds?.data };
}
/**
 * The timeout alone, checked as parseInputs checks it: the command reads its secrets within it,
 * before the rest can be checked with them. `quote: false`: its problems do not repeat the value
 * (a secret not known to the redactor yet could stand there by mistake).
 */
function parseTimeout(raw, naming, quote = true) {
    const schema = object({ timeout: timeoutInput(quote ? quotedAsGiven : () => 'the value') });
    return parsedOrThrown(schema, { timeout: raw }, naming).timeout;
}
function parsedOrThrown(schema, raw, naming) {
    const parsed = schema.safeParse(raw);
    if (parsed.success)
        return parsed.data;
    throw invalidInput(problemsOf(parsed, naming));
}
/** Each problem of a parse, at the start the input it is about as the front end names it. */
function problemsOf(parsed, naming) {
    if (parsed.success)
        return [];
    return parsed.error.issues.map((issue) => `${naming.label(issue.path[0])}: ${issue.message}`);
}
function invalidInput(problems) {
    return new InputError(`Invalid input: ${problems.join('; ')}`);
}

;// CONCATENATED MODULE: ./src/gate/gate-line.ts


/**
 * `Gate: branch preview/pr-12 of project …, its operations and then its readiness, then a query of
 * the database (database_url)`: what this run checks, said before it starts.
 */
function gateLine(plan, { mention }) {
    const { inputs, wait } = plan;
    const listed = inputs.orgId ? ` in organization ${inputs.orgId}` : '';
    if (plan.gate === 'projects') {
        return `Gate: none, only a list of the projects the key can see${listed}; no database query`;
    }
    const project = `project ${inputs.projectId ?? ''}`;
    if (plan.gate === 'sweep') {
        return `Gate: a sweep of ${project}, every branch that matches ${inputs.sweep?.text ?? ''}, for those stale; no wait, no database query`;
    }
    const what = {
        operations: () => `${inputs.operationIds.length === 1 ? `operation ${inputs.operationIds[0]}` : plural(inputs.operationIds.length, 'operation')} of ${project}`,
        branch: () => `branch ${inputs.branchId ?? ''} of ${project}, its operations and then its readiness`,
        project: () => `the whole ${project}, every operation in flight on any branch (no ${mention('branch_id')})`,
        'idle project': () => `${wait.idle?.for ?? ''} of branch ${inputs.branchId ?? ''}, the whole ${project} until it is idle, then ${wait.idle?.then ?? ''}`
    }[wait.covers]();
    const database = queriesDatabase(plan)
        ? `, then a query of the database (${mention('database_url')})`
        : '; no database query';
    const listing = inputs.listProjects
        ? `; first, a list of the projects the key can see${listed}`
        : '';
    return `Gate: ${what}${database}${listing}`;
}

;// CONCATENATED MODULE: ./src/gate/gate-run.ts
/*
 * One run of the gate, as either front end starts it: the seam below the action's runner and the
 * command. It owns what both do around gate(): every form of a secret into the redactor (which
 * inputs are secrets is the input catalog's), SIGINT and SIGTERM turned into an abort, the banner,
 * the line that says which gate runs, the warnings about ignored inputs, the report of a run that
 * ended on an error of its own, and the production dependencies (a harness swaps the clock, the
 * network or the database for simulated ones). A front end reads its inputs, runs them here, and
 * publishes the report.
 */












/**
 * Adds a secret to `redactor` in every form redaction must find (a database URL's password, plain
 * and decoded, too); returns those forms, so that the action can mask each with the runner.
 */
function addSecret(redactor, value, kind = 'secret') {
    const forms = (kind === 'database_url' ? databaseSecrets(value) : [value]).filter(Boolean);
    for (const form of forms)
        redactor.add(form);
    return forms;
}
/**
 * An input's value into `redactor` when the input catalog says it is a secret, without the white
 * space around it; returns the forms added (none for an input that is no secret).
 */
function addSecretInput(redactor, name, value) {
    const { secret } = inputEntry(name);
    if (!secret || !value)
        return [];
    return addSecret(redactor, value.trim(), secret === 'database_url' ? secret : 'secret');
}
/**
 * Every secret input into `redactor`, each read with `read` and handed on form by form to
 * `onSecret` before the next is read (the action masks it with the runner); returns them as read.
 */
function addSecretInputs(redactor, read, onSecret = () => undefined) {
    const values = {};
    for (const [name, { secret }] of inputEntries()) {
        if (!secret)
            continue;
        values[name] = read(name);
        addSecretInput(redactor, name, values[name]).forEach(onSecret);
    }
    return values;
}
/** What was thrown, in words. */
const messageOf = (error) => error instanceof Error ? error.message : String(error);
/**
 * The report of a run that ended on an error of its own, outside the gate (bad input, a signal
 * while a secret was read, something unexpected): no request counted, `text` redacted; `facts`
 * say otherwise (`cancelled`, an error of the input).
 */
function errorReport(text, redactor, facts = {}) {
    return {
        requests: { requests: 0, retries: 0 },
        outcome: 'error',
        error: redactor.redact(text),
        ...facts
    };
}
/**
 * The run begins when it is made: from then on until end() (gate() ends it too), the first SIGINT
 * or SIGTERM aborts what is in flight.
 */
class GateRun {
    options;
    /** The signal heard first, if one was. */
    stoppedBy;
    /** When the run began on its clock: `timeout` counts from here, secrets read first included. */
    startedAt;
    clock;
    controller = new AbortController();
    signals;
    onSignal = (signal) => {
        if (this.stoppedBy && this.options.onRepeatedSignal) {
            this.options.onRepeatedSignal(signal);
            return;
        }
        this.stoppedBy ??= signal;
        this.options.logger.info(`Received ${signal}: stopping`);
        this.controller.abort(new CancelledError(signal));
    };
    constructor(options) {
        this.options = options;
        this.clock = options.clock ?? domain_clock/* systemClock */.ml;
        this.startedAt = this.clock.now();
        if (options.bannerFirst)
            this.sayBanner();
        this.signals = options.signals ?? process;
        this.signals.once('SIGINT', this.onSignal);
        this.signals.once('SIGTERM', this.onSignal);
    }
    /** Aborted by the first SIGINT or SIGTERM, with its CancelledError. */
    get signal() {
        return this.controller.signal;
    }
    /**
     * The gate on `inputs`, their problems named as the front end names them; never throws. Says
     * which gate runs (after the banner), then warns about the inputs this combination ignores;
     * stops listening for signals once it is done.
     */
    async gate(inputs, naming) {
        const { logger, redactor } = this.options;
        if (!this.options.bannerFirst)
            this.sayBanner();
        const plan = planOf(inputs);
        logger.info(gateLine(plan, naming));
        for (const warning of ignoredInputWarnings(inputs, naming))
            logger.warning(warning);
        try {
            return await gate(plan, {
                clock: this.clock,
                stepStartedAt: this.startedAt,
                retryPolicy: this.options.retryPolicy ?? new RetryPolicy(),
                random: this.options.random,
                transport: this.options.transport ?? httpGet,
                queryDatabase: this.options.queryDatabase ?? queryDatabase,
                readPullRequests: this.options.readPullRequests,
                logger,
                redactor,
                signal: this.signal,
                naming
            });
        }
        finally {
            this.end();
        }
    }
    sayBanner() {
        const { about, logger } = this.options;
        logger.info(`Neon operations gate ${ACTION_VERSION}${about ? ` for ${about}` : ''}`);
    }
    /** Signals are no longer heard: a later one does what it does to any process. */
    end() {
        this.signals.off('SIGINT', this.onSignal);
        this.signals.off('SIGTERM', this.onSignal);
    }
}

;// CONCATENATED MODULE: ./src/report/outputs.ts


/**
 * GitHub allows 1 MB of outputs per job, counted as UTF-16 (two bytes a code unit), names
 * included: a job that maps more fails after the step passed. All of one step's outputs stay under
 * this, with room for `comment_url`, written after the rest. The JSON arrays are cut first.
 */
const MAX_OUTPUTS_UTF16_BYTES = 990_000;
const MAX_FIELD_CHARS = 200;
const outputs_MAX_ERROR_CHARS = 4000;
/** What an output costs against GitHub's limit: its name and its text, as UTF-16. */
function utf16Bytes(name, text) {
    return 2 * (name.length + text.length);
}
/** Every string field of an API object cut to size (the error text longer than the rest). */
function bounded(record) {
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [
        key,
        typeof value === 'string'
            ? truncate(value, key === 'error' ? outputs_MAX_ERROR_CHARS : MAX_FIELD_CHARS)
            : value
    ]));
}
/** `whole`: the items as they are; else each text field cut to size. */
function jsonList(name, items, whole = false) {
    const cut = whole ? items : items.map(bounded);
    const costs = cut.map((item) => utf16Bytes('', JSON.stringify(item)) + 2);
    return {
        name,
        items: cut,
        costs,
        need: utf16Bytes(name, '[]') + costs.reduce((a, b) => a + b, 0)
    };
}
/** As many items (from the first) as fit in `budget`; notes the rest. */
function fitting(list, budget, notes) {
    let bytes = utf16Bytes(list.name, '[]');
    let count = 0;
    while (count < list.items.length && bytes + list.costs[count] <= budget) {
        bytes += list.costs[count++];
    }
    if (count < list.items.length) {
        notes.push(`The ${list.name} output holds the first ${count} of ${list.items.length}: GitHub allows 1 MB of outputs per job, counted as UTF-16`);
    }
    return list.items.slice(0, count);
}
/**
 * The JSON arrays within what the other outputs leave: each gets what it needs when both fit;
 * else one that needs less than half keeps all of it and the other the rest; else half each.
 */
function fittingLists(lists, budget, notes) {
    const [first, second] = lists;
    if (!second)
        return [fitting(first, budget, notes)];
    const half = budget / 2;
    return [
        fitting(first, Math.max(half, budget - second.need), notes),
        fitting(second, Math.max(half, budget - first.need), notes)
    ];
}
/**
 * The outputs with their types: what the command's JSON holds, and the action's text comes from.
 * `maxBytes`: what all of them may take, as UTF-16 (the action's, for GitHub's limit); the
 * command's standard output has no such limit (Infinity). The steps' outputs come from their
 * sections: those before the wait ahead of `branch_state`, those after it behind.
 */
function typedOutputs(sections, report, maxBytes = MAX_OUTPUTS_UTF16_BYTES) {
    const values = {};
    const lists = [];
    const stepOutputs = (phase) => {
        for (const section of sections.filter((each) => each.phase === phase)) {
            const outputs = section.outputs?.(report);
            if (!outputs)
                continue;
            Object.assign(values, outputs.values);
            const { list } = outputs;
            if (list)
                lists.push(jsonList(list.name, list.items, list.whole));
        }
    };
    if (report.outcome && report.outcome !== 'error')
        values.outcome = report.outcome;
    // The gate that ran, even when the API showed an input wrong (a branch that does not exist).
    if (report.gate)
        values.gate = report.gate;
    stepOutputs('before-wait');
    if (report.branch) {
        const state = report.branch.current_state;
        values.branch_state = state ? truncate(state, MAX_FIELD_CHARS) : undefined;
    }
    stepOutputs('after-wait');
    // Every run that started, whatever ended it (`gone`, an error before the first poll).
    if (report.elapsedMs !== undefined)
        values.elapsed_ms = Math.round(report.elapsedMs);
    const operations = operationOutputs(report);
    if (operations) {
        Object.assign(values, operations.values);
        lists.unshift(jsonList('operations', operations.seen));
    }
    const rest = Object.entries(values).reduce((sum, [name, value]) => sum + utf16Bytes(name, outputText(value)), 0);
    const notes = [];
    if (lists.length > 0) {
        const kept = fittingLists(lists, maxBytes - rest, notes);
        lists.forEach((list, index) => (values[list.name] = kept[index]));
    }
    return { values, notes };
}
/**
 * The outputs of the operation that describes the run (primaryOperation), and every operation
 * seen; none when nothing was read (no operation, not an empty list of them).
 */
function operationOutputs(report) {
    const { wait } = report;
    const seen = wait && seenOperations(report);
    if (!wait || !seen)
        return undefined;
    const found = primaryOperation(seen, report.failFast ?? false);
    const operation = found && bounded(found);
    const values = {
        status: operation?.status,
        operation_id: operation?.id,
        action: operation?.action ?? undefined,
        branch_id: operation?.branch_id ?? undefined,
        endpoint_id: operation?.endpoint_id ?? undefined,
        failures_count: operation?.failures_count ?? undefined,
        error: operation?.error || undefined,
        created_at: operation?.created_at ?? undefined,
        updated_at: operation?.updated_at ?? undefined,
        duration_ms: operation &&
            operationDuration(operation, wait.readAt.get(operation.id), wait.clocksDisagree)?.ms,
        operation,
        operations: undefined
    };
    return { values, seen };
}
/** An output as text: empty when unset, JSON for objects and arrays. */
function outputText(value) {
    if (value === undefined)
        return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
function buildOutputs(sections, report) {
    const { values, notes } = typedOutputs(sections, report);
    const outputs = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, outputText(value)]));
    return { outputs, notes };
}

;// CONCATENATED MODULE: ./src/report/summary.ts
/*
 * The report as a person reads it: the job summary and the comment (HTML), and the command's
 * standard output (plain text). What it holds is said here once; report-format.ts writes it down.
 * Each step's part comes from its section (section.ts), in the steps' order.
 */







const OUTCOME_LABELS = {
    success: '✅ success',
    failure: '❌ failure',
    timeout: '⌛ timeout',
    pending: '⏳ pending',
    cancelled: '🚫 cancelled'
};
/** Rows per table of the job summary (the comment has fewer). */
const SUMMARY_LIMITS = { operationRows: 50, projectRows: 100 };
/** GitHub drops a step summary over 1 MiB; the action's stays within half of that, in UTF-8 bytes. */
const MAX_SUMMARY_BYTES = 512 * 1024;
const MAX_MESSAGE_CHARS = 2000;
/**
 * `waited 7.1 s · 8 polls · 8 requests · 0 retries · project …`: the counts, below the outcome,
 * after what the front end says the run is for (`about`).
 */
function countsLine(format, report, about) {
    const { code } = format;
    const facts = [...about];
    if (report.wait) {
        if (report.elapsedMs !== undefined)
            facts.push(`waited ${formatDuration(report.elapsedMs)}`);
        facts.push(plural(report.wait.polls, 'poll'));
    }
    facts.push(plural(report.requests.requests, 'request'));
    facts.push(plural(report.requests.retries, 'retry', 'retries'));
    if (report.pace && report.pace.rateLimited > 0) {
        facts.push(`${report.pace.rateLimited} × HTTP 429`);
        facts.push(`slowest pace ${formatDuration(report.pace.slowestMs)}`);
    }
    if (report.gate)
        facts.push(`gate ${code(report.gate)}`);
    if (report.projectId)
        facts.push(`project ${code(report.projectId)}`);
    if (report.branch) {
        facts.push(`branch ${format.text(report.branch.name)} ${code(report.branch.id)}`);
        if (report.branch.current_state) {
            facts.push(`branch state ${format.phrase(branchStatePhrase(report.branch))}`);
        }
    }
    return format.paragraph(facts.join(' · '));
}
/**
 * The first lines, which answer "why": the outcome and what decided it (what failed; what was still
 * in flight, and for how long; how many finished), or the error; on a failure, what was still in
 * flight beside it; then what a step could not do.
 */
function outcomeLines(sections, format, report, facts) {
    const under = sections.flatMap((section) => section.underOutcome?.(format, report) ?? []);
    if (report.outcome === 'error') {
        const error = format.text(report.error, MAX_MESSAGE_CHARS);
        return [format.paragraph(`${format.strong('❌ Error:')} ${error}`), ...under];
    }
    const { outcome, elapsedMs } = report;
    // The whole run: a timeout during a step after the wait is not one "after" the wait alone.
    const after = (outcome === 'timeout' || outcome === 'cancelled') && report.wait && elapsedMs !== undefined
        ? ` after ${formatDuration(elapsedMs)}`
        : '';
    const label = `${format.strong(OUTCOME_LABELS[outcome])}${after}`;
    const line = outcomeLine(sections, report, facts);
    const lines = [format.paragraph(`${label}${line ? `: ${format.phrase(line)}` : ''}`)];
    if (outcome === 'failure' && facts.inFlight.length > 0) {
        lines.push(format.paragraph(`⏳ ${format.phrase(inFlightPhrase(facts))}`));
    }
    return [...lines, ...under];
}
/**
 * The report's first line as plain text, API text made safe for a log: the outcome and why
 * (`❌ failure: start_compute on br-7 ended in error: "…"`), or the error.
 */
function headlineText(sections, report) {
    return forLogLines(outcomeLines(sections, TEXT_FORMAT, report, operationFacts(report))[0]);
}
/** The report in `format`: the outcome and why, the counts, the steps' parts and the operations. */
function renderReport(sections, report, format, { limits = SUMMARY_LIMITS, about = [] }) {
    const facts = operation_facts_operationFacts(report);
    const placed = (place) => sections.flatMap((section) => section.summary?.place === place ? section.summary.render(format, report, limits) : []);
    const parts = [
        format.heading('Neon operations gate', 2),
        ...outcomeLines(sections, format, report, facts),
        countsLine(format, report, about)
    ];
    for (const note of [report.wait?.reason, report.historyNotJudged]) {
        if (note)
            parts.push(format.paragraph(format.text(note, MAX_MESSAGE_CHARS)));
    }
    parts.push(...placed('above-operations'));
    parts.push(...operationsSection(sections, format, report, facts, limits));
    parts.push(...recentFailuresSection(format, report, facts, limits));
    parts.push(...placed('below-operations'));
    return format.join(parts);
}
/**
 * The job summary (and, with smaller limits, the pull-request comment): what a person checks on the
 * console. HTML, in one block, with the timeline as a Mermaid block between blank lines.
 */
function renderSummary(sections, report, options = {}) {
    return renderReport(sections, report, HTML_FORMAT, options);
}
/**
 * The same report as plain text, for the command's standard output: the outcome first, no Markdown,
 * and no line a CI log could read as a command.
 */
function renderTextReport(sections, report) {
    return untrusted_text_forLogLines(renderReport(sections, report, report_format_TEXT_FORMAT, {}));
}
/**
 * The summary within `maxBytes` of UTF-8: the tables lose half their rows until it fits, and a
 * last cut catches anything left.
 */
function renderSummaryWithin(sections, report, maxBytes, { limits = SUMMARY_LIMITS, about } = {}) {
    for (let rows = limits;;) {
        const text = renderSummary(sections, report, { limits: rows, about });
        const fewest = rows.operationRows === 0 && rows.projectRows === 0;
        if (Buffer.byteLength(text) <= maxBytes || fewest)
            return truncateBytes(text, maxBytes);
        rows = {
            operationRows: Math.floor(rows.operationRows / 2),
            projectRows: Math.floor(rows.projectRows / 2)
        };
    }
}

;// CONCATENATED MODULE: ./src/gate/run-report.ts
/*
 * The run's report as the front ends publish it: report/'s summary, first line, error line and
 * outputs, over the steps' sections in the gate's order (steps.ts).
 */




const run_report_errorLine = (report) => errorLine(steps_SECTIONS, report);
const run_report_headlineText = (report) => headlineTextOf(SECTIONS, report);
const run_report_renderSummary = (report, options) => renderSummaryOf(SECTIONS, report, options);
const run_report_renderSummaryWithin = (report, maxBytes, options) => renderSummaryWithin(steps_SECTIONS, report, maxBytes, options);
const run_report_renderTextReport = (report) => renderTextReport(steps_SECTIONS, report);
const run_report_typedOutputs = (report, maxBytes) => typedOutputs(steps_SECTIONS, report, maxBytes);
const run_report_buildOutputs = (report) => buildOutputsOf(SECTIONS, report);

;// CONCATENATED MODULE: ./src/command/exit-codes.ts
/** The command's exit codes, one per kind of ending, so that a script can tell them apart. */
const EXIT = {
    success: 0,
    failure: 1,
    usage: 2,
    refused: 3,
    /** EX_TEMPFAIL: try again later. */
    pending: 75,
    /** As timeout(1) exits. */
    timeout: 124,
    /** 128 + the signal's number. */
    SIGINT: 130,
    SIGTERM: 143
};
/** The exit code of a run that reached the gate; `signal`: what cancelled it, if anything did. */
function exitCodeOf(report, signal) {
    switch (report.outcome) {
        case 'success':
            return EXIT.success;
        case 'failure':
            return EXIT.failure;
        case 'pending':
            return EXIT.pending;
        case 'timeout':
            return EXIT.timeout;
        case 'cancelled':
            return EXIT[signal ?? 'SIGINT'];
        default:
            return report.errorCause === 'input' ? EXIT.usage : EXIT.refused;
    }
}

;// CONCATENATED MODULE: external "node:util"
const external_node_util_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:util");
;// CONCATENATED MODULE: ./src/command/options.ts

const COMMAND_OPTIONS = {
    output: { type: 'string' },
    summary: { type: 'string' },
    dotenv: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' }
};
function inputOptions() {
    const options = {};
    for (const [, { command }] of inputEntries()) {
        const { flag, file } = command;
        if (flag?.boolean)
            options[flag.name] = { type: 'boolean' };
        else if (flag)
            options[flag.name] = { type: 'string', ...(flag.multiple && { multiple: true }) };
        if (file)
            options[file] = { type: 'string' };
    }
    return options;
}
/** Every flag of the command, by name without its dashes. */
const OPTIONS = { ...inputOptions(), ...COMMAND_OPTIONS };
/**
 * The flags that ask for a gate (an input's that does, and the file that holds it): with any of
 * them, NEON_PROJECT_ID is the project; only `--list-projects` without them ignores it.
 */
const GATE_FLAGS = inputEntries().flatMap(([, { command }]) => command.flag?.gate ? [command.flag.name, ...(command.file ? [command.file] : [])] : []);
/** An input's flag as typed: `--project-id` (a secret without a flag: its contract name). */
const flagOf = (name) => `--${inputEntry(name).command.flag?.name ?? name}`;
/** An input's value in its environment variable, when it has one (NEON_API_KEY, NEON_PROJECT_ID). */
function variableValue(name, env) {
    const { env: variable } = inputEntry(name).command;
    return variable === undefined ? undefined : env[variable];
}

;// CONCATENATED MODULE: ./src/command/result-targets.ts
/*
 * Where the command writes its result files (--summary, --dotenv), also read from a command line
 * that did not parse, so that the files still say why.
 */
/**
 * The result files named by a command line that did not parse (an unknown flag, a value missing, a
 * flag given twice): they are written on every exit whose paths are known, bad flags included,
 * each path given (none keeps an earlier run's outcome). A value that starts with a dash is the
 * next flag, not a path. The paths paired in order: each pair is checked as one run's files.
 */
function resultTargetsOf(argv, env) {
    const paths = { '--summary': [], '--dotenv': [] };
    const end = argv.indexOf('--');
    argv.slice(0, end === -1 ? undefined : end).forEach((arg, index) => {
        const [name, ...inline] = arg.split('=');
        if (!(name in paths))
            return;
        const value = inline.length > 0 ? inline.join('=') : argv[index + 1];
        if (value !== undefined && value.trim() !== '' && !value.startsWith('-'))
            paths[name].push(value);
    });
    const [summaries, dotenvs] = [paths['--summary'], paths['--dotenv']];
    const count = Math.max(1, summaries.length, dotenvs.length);
    return Array.from({ length: count }, (_, index) => ({
        summary: summaryTarget(summaries[index], index === 0 ? env : {}),
        dotenvFile: dotenvs[index]
    }));
}
/** `--summary FILE`; inside GitHub Actions, the step's summary by default. */
function summaryTarget(flag, env) {
    if (flag !== undefined)
        return { path: flag, append: false };
    const stepSummary = env.GITHUB_ACTIONS === 'true' ? env.GITHUB_STEP_SUMMARY : undefined;
    return stepSummary ? { path: stepSummary, append: true } : undefined;
}

;// CONCATENATED MODULE: ./src/command/flags.ts
/*
 * The command's flags, read with node:util's parseArgs: the gate's inputs in kebab-case, and what
 * only a command has (where the key comes from, the output, the files for CI). Secrets never come
 * from a flag's value: a flag shows in `ps` and in shell history.
 */




/** Bad flags or input: the command's usage error (exit code 2), naming the flag as typed. */
class UsageError extends Error {
    name = 'UsageError';
}
/**
 * An unknown flag is named only when it looks like one: what is not (`--napi_…`, a long token) may
 * be a secret given by mistake, and this error comes before every secret is known to the redactor.
 */
const FLAG_SHAPE = /^--?[A-Za-z][A-Za-z0-9-]{0,39}$/;
/** Node's words for a bad command line, as our own: the flag, and where to look; never a value. */
function usageError(error) {
    const { code, message } = error;
    const quoted = /'([^']+)'/.exec(message)?.[1] ?? '';
    const flag = quoted.split(' ')[0];
    switch (code) {
        case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
            return new UsageError(FLAG_SHAPE.test(flag)
                ? `unknown flag ${flag}`
                : 'an unknown flag (not repeated here, in case it is a secret)');
        case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
            if (quoted === 'sweep') {
                return new UsageError('sweep must come first: neon-gate sweep --match PATTERN, then the other flags');
            }
            // Not quoted: it may be a secret given by mistake (neon-gate "$NEON_API_KEY").
            return new UsageError('an argument without its flag: every value follows its flag, as --project-id ID (the argument is not repeated here, in case it is a secret)');
        case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
            if (message.includes('does not take an argument')) {
                return new UsageError(`${flag} takes no value (turn it off with --no-${flag.replace(/^--(no-)?/, '')})`);
            }
            // Followed by another flag, or by a value that starts with a dash.
            return new UsageError(message.includes('ambiguous')
                ? `${flag} needs a value; one that starts with a dash goes as ${flag}=-…`
                : `${flag} needs a value`);
        default:
            return new UsageError(message);
    }
}
/** Flags that take a value (the rest are switches). */
const VALUE_FLAGS = new Set(Object.entries(OPTIONS)
    .filter(([, option]) => option.type === 'string')
    .map(([name]) => `--${name}`));
/** Flags that take one value: all but --operation-id, which repeats. */
const SINGLE_VALUE_FLAGS = new Set(Object.entries(OPTIONS)
    .filter(([, option]) => option.type === 'string' && !('multiple' in option))
    .map(([name]) => name));
/**
 * `--timeout -5` as `--timeout=-5`: parseArgs takes a value that starts with a dash for a flag,
 * but a negative number is a value given, which the flag's own check then refuses as such.
 */
function negativeValuesJoined(argv) {
    const joined = [];
    for (const arg of argv) {
        const previous = joined.at(-1);
        if (previous !== undefined && VALUE_FLAGS.has(previous) && /^-\d/.test(arg)) {
            joined[joined.length - 1] = `${previous}=${arg}`;
        }
        else {
            joined.push(arg);
        }
    }
    return joined;
}
function parseCommandLine(argv, env) {
    // `neon-gate sweep --match PATTERN`: the sweep is a command of its own, its pattern its flag.
    const sweep = argv[0] === 'sweep';
    let parsed;
    try {
        parsed = (0,external_node_util_namespaceObject.parseArgs)({
            args: negativeValuesJoined(sweep ? argv.slice(1) : argv),
            options: OPTIONS,
            tokens: true,
            allowNegative: true
        });
    }
    catch (error) {
        throw usageError(error);
    }
    const { values: flags, tokens } = parsed;
    if (flags.help)
        return { help: true };
    if (flags.version)
        return { version: true };
    checkFlagValues(tokens);
    const { values, labels } = inputValues(flags, tokens, env);
    checkSweepCommand(sweep, values.sweep);
    checkSecretSources(flags);
    const output = flags.output ?? 'text';
    if (output !== 'text' && output !== 'json') {
        // Not quoted: a secret given by mistake is not known to the redactor yet.
        throw new UsageError('--output: not one of text, json (the value is not repeated here)');
    }
    return {
        request: {
            values,
            naming: {
                label: (name) => labels.get(name) ?? flagOf(name),
                // A secret by where it comes from (NEON_API_KEY, --api-key-file): it has no flag of its own.
                mention: (name) => (inputEntry(name).secret && labels.get(name)) || flagOf(name),
                enabled: flagOf
            },
            apiKeyFile: flags['api-key-file'],
            databaseUrlFile: flags['database-url-file'],
            output,
            quiet: flags.quiet ?? false,
            summary: summaryTarget(flags.summary, env),
            dotenvFile: flags.dotenv
        }
    };
}
/**
 * An empty value is an unset variable in a script, not a choice of the default. A flag of one
 * value given twice would be last-wins: a wrapper's `--branch-id "$A" "$@"` would check another
 * branch than the one its next step deletes, and a second `--dotenv` would leave the first file
 * claiming an earlier run's outcome. Only --operation-id repeats.
 */
function checkFlagValues(tokens) {
    const seen = new Set();
    for (const token of tokens) {
        if (token.kind !== 'option')
            continue;
        if (token.value !== undefined && token.value.trim() === '') {
            throw new UsageError(`${token.rawName}: an empty value (an unset variable?); give one, or leave the flag out`);
        }
        if (seen.has(token.name)) {
            throw new UsageError(`--${token.name} is given twice: it takes one value, and only one would be used; give it once`);
        }
        if (SINGLE_VALUE_FLAGS.has(token.name))
            seen.add(token.name);
    }
}
/** `--match` is the sweep's, and the sweep needs it. */
function checkSweepCommand(sweep, match) {
    if (sweep && match === undefined) {
        throw new UsageError('neon-gate sweep needs --match PATTERN (preview/*, preview/pr-{pr})');
    }
    if (!sweep && match !== undefined) {
        throw new UsageError('--match belongs to the sweep: run neon-gate sweep --match PATTERN');
    }
}
/** Each secret from one place: the database URL by its flag or its file, standard input for one. */
function checkSecretSources(flags) {
    if (flags['database-url'] !== undefined && flags['database-url-file'] !== undefined) {
        throw new UsageError('give --database-url or --database-url-file, not both');
    }
    if (flags['api-key-file'] === '-' && flags['database-url-file'] === '-') {
        throw new UsageError('standard input can hold one secret: --api-key-file - and --database-url-file - cannot both read it');
    }
}
/**
 * The gate's inputs as text, from their flags or else their variables, and the name each came by:
 * the flag as the user typed it (`--no-wait`; the last, where a flag is repeated), or the variable.
 */
function inputValues(flags, tokens, env) {
    const typed = new Map();
    for (const token of tokens) {
        if (token.kind === 'option')
            typed.set(token.name, token.rawName.replace(/=.*$/, ''));
    }
    const values = {};
    const labels = new Map();
    // NEON_PROJECT_ID is the project to gate, but --list-projects alone only lists.
    const onlyLists = flags['list-projects'] && !GATE_FLAGS.some((flag) => typed.has(flag));
    for (const [name, { command }] of inputEntries()) {
        const { flag, env: variable, file } = command;
        const given = flag && flags[flag.name];
        if (flag && given !== undefined) {
            values[name] = Array.isArray(given) ? given.join(',') : String(given);
            labels.set(name, typed.get(flag.name) ?? `--${flag.name}`);
        }
        else if (flag && variable && env[variable] && !(name === 'project_id' && onlyLists)) {
            values[name] = env[variable];
            labels.set(name, variable);
        }
        // A secret is named by where it comes from: its file as typed, else its flag or variable.
        const from = (file && typed.get(file)) || labels.get(name) || variable;
        if (file && from)
            labels.set(name, from);
    }
    return { values, labels };
}

;// CONCATENATED MODULE: ./src/command/help.ts




/** The inputs' help in one part: a paragraph as it is, a flag's lines beside it (column 29). */
function inputHelp(part) {
    const helps = inputEntries()
        .map(([, entry]) => entry.help)
        .filter((help) => help.part === part);
    const flagLines = ([usage, first, ...more]) => [
        `  ${usage.padEnd(26)}${first ?? ''}`,
        ...more.map((line) => `${' '.repeat(28)}${line}`)
    ];
    return helps
        .flatMap((help) => ('text' in help ? help.text : help.flags.flatMap(flagLines)))
        .join('\n');
}
/**
 * `{name}` in `words` as the input's first flag in the catalog's help: with its value
 * (`--before delete|reset`) in a usage line, alone (`--before`) in a reason.
 */
function withFlags(words, form) {
    return words.replace(/\{(\w+)\}/g, (named, name) => {
        const help = inputEntries().find(([input]) => input === name)?.[1].help;
        // What names no input with a flag stays as written, braces and all (command-help.test.ts).
        if (!help || !('flags' in help))
            return named;
        const [usage] = help.flags[0];
        return form === 'usage' ? usage : usage.split(' ')[0];
    });
}
/** The core's gates: the whole project or one branch, and the operations `operation_id` names. */
const CORE_USAGE = [
    '{project_id} [{branch_id}]',
    '{project_id} {operation_id} [{operation_id} ...]'
];
const usageLines = [...CORE_USAGE, ...STEPS.flatMap(({ help }) => help.usage ?? [])]
    .map((usage) => `  neon-gate ${withFlags(usage, 'usage')} [options]`)
    .join('\n');
/** Each step's reasons for a run to end in `outcome`, in the steps' order. */
const stepReasons = (outcome) => STEPS.flatMap(({ help }) => help.ends.filter(([ends]) => ends === outcome).map(([, why]) => why));
/** Why the command ends with each of its codes: its own reasons, then the steps'. */
const EXIT_REASONS = {
    success: ['success'],
    failure: ['an operation failed', ...stepReasons('failure')],
    usage: ['bad flags or input', 'a result file (or standard output) could not be written'],
    refused: [
        'the API refused (401, 403, 404, other 4xx)',
        'an error no retry can fix',
        ...stepReasons('error')
    ],
    pending: ['{wait}, and work is still in flight: try again later'],
    timeout: ['the timeout ran out'],
    SIGINT: ['interrupted (SIGINT)'],
    SIGTERM: ['terminated (SIGTERM)']
};
/** Each exit code and why the command ends with it, each input named by its flag (docs/cli.md too). */
const EXIT_CODE_REASONS = Object.entries(EXIT_REASONS).map(([kind, reasons]) => [
    EXIT[kind],
    reasons.map((reason) => withFlags(reason, 'flag'))
]);
/** A code a line, each further reason below its first, after `or`. */
const exitLines = EXIT_CODE_REASONS.flatMap(([code, [first, ...more]]) => [
    `  ${String(code).padEnd(5)}${first}`,
    ...more.map((reason) => `       or ${reason}`)
]).join('\n');
const VERSION_TEXT = `neon-gate ${ACTION_VERSION}\n`;
const HELP_TEXT = `neon-gate ${ACTION_VERSION}: wait until a Neon project's operations are done, then exit 0.

Usage:
${usageLines}

${inputHelp('intro')}

What to wait for:
${inputHelp('what')}

How:
${inputHelp('how')}

Output:
  --output text|json        standard output: a plain report (default), or one JSON object
                            holding the outputs by name
  --summary FILE            also write the Markdown job summary (inside GitHub Actions:
                            the step summary by default)
  --dotenv FILE             also write the outputs as GATE_<NAME>=value lines, for
                            GitLab's artifacts:reports:dotenv
  -q, --quiet               no progress on standard error (warnings, notices and errors
                            still show)
  -h, --help                this text
  --version                 the version

Exit codes:
${exitLines}

Environment: NEON_API_KEY, NEON_PROJECT_ID, NO_COLOR, HTTPS_PROXY, NO_PROXY.
Reference: docs/cli.md in the neon-operations-gate package.
`;

;// CONCATENATED MODULE: ./src/command/progress.ts
const CLEAR_LINE = '\r\x1b[2K';
/**
 * Characters a terminal shows two columns wide: East Asian wide and full-width forms, and emoji
 * (Unicode's East_Asian_Width W and F, by block).
 */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
/** `line` cut to at most `columns` columns of a terminal, with `…` where it was cut. */
function fitted(line, columns) {
    let used = 0;
    let kept = '';
    for (const character of line) {
        used += WIDE.test(character) ? 2 : 1;
        if (used > columns - 1)
            return `${kept}…`;
        kept += character;
    }
    return line;
}
class Progress {
    stream;
    options;
    /** Whether a progress line stands on the terminal, waiting to be rewritten. */
    lineOpen = false;
    lastLine = '';
    constructor(stream, options) {
        this.stream = stream;
        this.options = options;
    }
    info(message) {
        if (this.options.quiet)
            return;
        const line = this.options.clean(message);
        if (!this.stream.isTTY) {
            // One line per change: the same line twice in a row says nothing new.
            if (line !== this.lastLine)
                this.stream.write(`${line}\n`);
            this.lastLine = line;
            return;
        }
        // Cut to the terminal's width: a line that wraps cannot be rewritten in place.
        const width = Math.max(20, (this.stream.columns || 80) - 1);
        this.stream.write(`${CLEAR_LINE}${fitted(line, width)}`);
        this.lineOpen = true;
    }
    warning(message) {
        this.standing('warning', message, '\x1b[33m');
    }
    notice(message) {
        this.standing('notice', message, '\x1b[36m');
    }
    error(message) {
        this.standing('error', message, '\x1b[31m');
    }
    debug() { }
    /** The progress line cleared, so that what follows starts on a clean line. */
    finish() {
        if (this.lineOpen)
            this.stream.write(CLEAR_LINE);
        this.lineOpen = false;
    }
    /** A line that stays: above the progress line on a terminal. */
    standing(label, message, colour) {
        this.finish();
        const painted = this.stream.isTTY && this.options.color ? `${colour}${label}:\x1b[39m` : `${label}:`;
        this.stream.write(`${painted} ${this.options.clean(message)}\n`);
        this.lastLine = '';
    }
}

;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs");
;// CONCATENATED MODULE: external "node:fs/promises"
const promises_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs/promises");
;// CONCATENATED MODULE: ./src/command/secrets.ts
/*
 * The command's secrets: the API key from NEON_API_KEY or a file, the database URL from its flag or
 * a file (`-`: standard input, or a pipe such as `<(pass show neon)`). Read with a size cap and a
 * time limit, so that a wrong path (a device, a log, a pipe nobody writes to) can neither make the
 * command read without end nor hold it. White space around a secret is not part of it. A message
 * about a file never quotes its path (the secret itself is sometimes given where the path belongs)
 * nor what it holds.
 */




/** A key or a connection string is far shorter; anything longer is the wrong file. */
const MAX_SECRET_BYTES = 64 * 1024;
/** Reads at most MAX_SECRET_BYTES + 1 bytes, to tell "too long" from "long enough". */
async function readCapped(chunks) {
    const parts = [];
    let bytes = 0;
    for await (const chunk of chunks) {
        const part = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        parts.push(part);
        bytes += part.length;
        if (bytes > MAX_SECRET_BYTES)
            break;
    }
    return Buffer.concat(parts);
}
/**
 * The file's first MAX_SECRET_BYTES + 1 bytes, opened without blocking: a blocking open of a pipe
 * that nobody writes to would hold a thread that not even the process's exit could take back. A
 * pipe whose writer is there but slow (`<(pass show neon)`) is read as its bytes come, and a pipe
 * made with `mkfifo` is waited for until its writer comes (a secret store that writes to it later):
 * before any byte, a pipe without a writer reads as ended. `<(…)` is no such pipe (its path is a
 * link to one whose writer came first), so an end there is the end. Until the time limit or a
 * signal ends the wait (`done`): then the reading stops too.
 */
async function readFileCapped(path, done) {
    const file = await (0,promises_namespaceObject.open)(path, external_node_fs_namespaceObject.constants.O_RDONLY | external_node_fs_namespaceObject.constants.O_NONBLOCK);
    try {
        const named = (await (0,promises_namespaceObject.lstat)(path)).isFIFO();
        const parts = [];
        let bytes = 0;
        while (bytes <= MAX_SECRET_BYTES && !done.aborted) {
            const buffer = Buffer.alloc(MAX_SECRET_BYTES + 1 - bytes);
            let bytesRead;
            try {
                ;
                ({ bytesRead } = await file.read(buffer, 0, buffer.length, null));
            }
            catch (error) {
                if (error.code !== 'EAGAIN')
                    throw error;
                bytesRead = -1;
            }
            if (bytesRead === 0 && !(named && bytes === 0))
                break;
            if (bytesRead <= 0) {
                await new Promise((resolve) => setTimeout(resolve, 20));
                continue;
            }
            parts.push(buffer.subarray(0, bytesRead));
            bytes += bytesRead;
        }
        return Buffer.concat(parts);
    }
    finally {
        await file.close();
    }
}
/** Nothing came from `flag` within `limitMs`, what the timeout had left. */
const timeRanOut = (flag, limitMs) => new UsageError(`${flag}: nothing came from it within ${formatDuration(limitMs)}, what was left of the timeout: a pipe that nobody writes to?`);
/**
 * Rejects after `limitMs` with a UsageError for `flag` (nothing came in time), or with the reason of
 * `signal` (SIGINT, SIGTERM) as soon as it aborts.
 */
function timeLimit(flag, limitMs, signal) {
    let timer;
    let onAbort = () => undefined;
    const expired = new Promise((_, reject) => {
        timer = setTimeout(() => reject(timeRanOut(flag, limitMs)), limitMs);
        onAbort = () => reject(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
    });
    return {
        expired,
        clear: () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
        }
    };
}
/**
 * The secret in the file that `flag` names (`-`: standard input), without the white space around
 * it, read within `limitMs`.
 */
async function readSecretFile(flag, path, { stdin, limitMs, signal }) {
    const where = path === '-' ? 'standard input' : 'the file';
    signal?.throwIfAborted();
    // No time left: not even a file that would answer at once is read, so the error is always this.
    if (limitMs <= 0)
        throw timeRanOut(flag, limitMs);
    const limit = timeLimit(flag, limitMs, signal);
    const done = new AbortController();
    let content;
    try {
        const reading = path === '-' ? readCapped(stdin) : readFileCapped(path, done.signal);
        content = await Promise.race([reading, limit.expired]);
    }
    catch (error) {
        if (error instanceof UsageError || signal?.aborted)
            throw error;
        const { code } = error;
        throw new UsageError(`${flag}: cannot read ${where}${code ? ` (${code})` : ''}; give the path of a file that holds the secret, not the secret itself`);
    }
    finally {
        limit.clear();
        done.abort();
    }
    if (content.length > MAX_SECRET_BYTES) {
        throw new UsageError(`${flag}: ${where} holds more than 64 KiB; it should hold only the secret`);
    }
    const secret = content
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .trim();
    if (secret === '')
        throw new UsageError(`${flag}: ${where} is empty`);
    return secret;
}
/** The API key: from `--api-key-file`, else NEON_API_KEY; without the white space around it. */
async function readApiKey(file, env, reading) {
    if (file !== undefined)
        return readSecretFile('--api-key-file', file, reading);
    const key = (env.NEON_API_KEY ?? '').trim();
    if (key === '') {
        throw new UsageError('NEON_API_KEY is not set: export the API key as NEON_API_KEY, or give --api-key-file PATH (- reads standard input)');
    }
    return key;
}

;// CONCATENATED MODULE: ./src/command/read-inputs.ts



/**
 * The timeout checked, then the secrets read within what is left of it (each added to the
 * redactor at once; a signal ends the reading with its CancelledError), then every input checked,
 * with every secret already redacted.
 */
async function readInputs(request, { env, stdin }, { clock, startedAt, signal }, redactor) {
    // A bad --timeout is said at once, not after a pipe that nobody writes to has had five days;
    // unless the key is known to the redactor already (NEON_API_KEY), it does not repeat the value.
    const keyKnown = request.apiKeyFile === undefined && (env.NEON_API_KEY ?? '').trim() !== '';
    const timeoutMs = parseTimeout(request.values.timeout ?? '', request.naming, keyKnown);
    const reading = () => ({
        stdin,
        limitMs: Math.max(0, startedAt + timeoutMs - clock.now()),
        signal
    });
    const apiKey = await readApiKey(request.apiKeyFile, env, reading());
    addSecretInput(redactor, 'api_key', apiKey);
    const databaseUrl = request.databaseUrlFile !== undefined
        ? await readSecretFile('--database-url-file', request.databaseUrlFile, reading())
        : request.values.database_url?.trim();
    addSecretInput(redactor, 'database_url', databaseUrl);
    const values = {
        ...request.values,
        api_key: apiKey,
        database_url: databaseUrl
    };
    return parseInputs((name) => values[name], request.naming);
}

;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:path");
;// CONCATENATED MODULE: ./src/gate/output-files.ts
/*
 * The files a run writes its result to: the runner's (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), which
 * @actions/core opens with a plain blocking open, and the command's (--summary, --dotenv). On a
 * FIFO that nobody reads such an open waits forever, past `timeout`. This looks at the path first
 * without blocking (O_NONBLOCK, which @actions/core has no way to ask for) and lets a front end
 * write only to a regular file or a device such as /dev/null, whose writes do not wait for a reader.
 */

/**
 * Why the file at `path` cannot take a write, or undefined when it can without waiting. `create`:
 * a file that is not there yet is made (the command's files), instead of being a problem. The
 * reason never repeats the path (the command's paths come from flags, where a secret is sometimes
 * given by mistake).
 */
function outputFileProblem(path, create = false) {
    let descriptor;
    const flags = external_node_fs_namespaceObject.constants.O_WRONLY | external_node_fs_namespaceObject.constants.O_APPEND | external_node_fs_namespaceObject.constants.O_NONBLOCK;
    try {
        descriptor = (0,external_node_fs_namespaceObject.openSync)(path, create ? flags | external_node_fs_namespaceObject.constants.O_CREAT : flags);
    }
    catch (error) {
        // What a FIFO with no reader answers to a non-blocking open.
        const { code } = error;
        if (code === 'ENXIO')
            return 'it is not a regular file (a pipe that nobody reads)';
        return `it cannot be opened for writing (${code ?? 'an error without a code'})`;
    }
    try {
        const stats = (0,external_node_fs_namespaceObject.fstatSync)(descriptor);
        return stats.isFile() || stats.isCharacterDevice()
            ? undefined
            : 'it is not a regular file (a pipe or a socket could block the step)';
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(descriptor);
    }
}

;// CONCATENATED MODULE: ./src/command/results.ts
/*
 * What the command hands on: standard output (a plain report, or the outputs as one JSON object),
 * the job summary's Markdown (--summary) and the outputs as dotenv lines (--dotenv, for GitLab's
 * dotenv reports). Secrets are taken out of each, and API text made harmless for a terminal and a
 * CI log, here.
 */



/**
 * Outputs that are JSON documents of any size: in the JSON result, never in a dotenv line (the
 * `blockers` of `before`, at most six, go there as a JSON array, every entry kept).
 */
const JSON_OUTPUTS = new Set(['operation', 'operations', 'projects', 'stale']);
/**
 * GitLab takes a dotenv report of at most 5 KB and, on some plans, 20 variables: the scalar
 * outputs (17, or with `before` 18 with `preflight`, `preflight_branch_id` and `blockers` and
 * without the database's two) and 2 lines of the command's own, each value cut (after it was made
 * safe, in UTF-8 bytes) to this, the texts longer, stay within both (at most 4.6 KB).
 */
const MAX_DOTENV_VALUE_BYTES = 160;
const MAX_DOTENV_TEXT_BYTES = 800;
const DOTENV_TEXTS = new Set(['error', 'message', 'blockers']);
/**
 * Standard output: the report as plain text, or the outputs as one JSON object, whole (GitHub's 1 MB
 * of outputs a job, which cuts the action's arrays, is no limit here).
 */
function standardOutput(report, output, redactor) {
    if (output === 'text')
        return redactor.redact(run_report_renderTextReport(report));
    const { values } = run_report_typedOutputs(report, Infinity);
    const set = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
    return `${forJsonLine(redactor.redactJson(set))}\n`;
}
/**
 * `GATE_OUTCOME=failure` and the rest of the scalar outputs, one line each, then what a later job
 * needs when the gate could not even say an outcome: `GATE_EXIT_CODE` and `GATE_MESSAGE` (the
 * error line of standard error, when there is one).
 */
function dotenvText(report, { redactor, code, message }) {
    const { values } = run_report_typedOutputs(report, Infinity);
    const lines = [];
    for (const [name, value] of Object.entries(values)) {
        if (JSON_OUTPUTS.has(name))
            continue;
        if (Array.isArray(value)) {
            const written = dotenvJsonList(value, redactor);
            lines.push([name, written, written]);
        }
        else
            lines.push([name, outputText(value)]);
    }
    lines.push(['exit_code', String(code)]);
    const said = message ?? run_report_errorLine(report);
    if (said)
        lines.push(['message', said]);
    return dotenvLines(lines, redactor);
}
/** `GATE_NAME=value` lines, each value redacted, made safe and cut. */
function dotenvLines(lines, redactor) {
    return lines
        .map(([name, text, ready]) => {
        const bytes = DOTENV_TEXTS.has(name) ? MAX_DOTENV_TEXT_BYTES : MAX_DOTENV_VALUE_BYTES;
        const value = ready ?? dotenvValue(forLog(redactor.redact(text)), bytes);
        return `GATE_${name.toUpperCase()}=${value}\n`;
    })
        .join('');
}
/**
 * A JSON array (the blockers, `{reason, detail}`, at most six) as a dotenv value that stays JSON and
 * keeps every entry: redacted, written as one line (forJsonLine), `$` and `%` doubled, within
 * MAX_DOTENV_TEXT_BYTES. When the whole does not fit, every `detail` is cut (with the marker) to the
 * longest length at which all fit: a reason is never left out, only the end of what to do.
 */
function dotenvJsonList(items, redactor) {
    const redacted = items.map((item) => redactor.redactJson(item));
    const written = (maxChars) => doubleSigns(forJsonLine(redacted.map(({ detail, ...rest }) => typeof detail === 'string' ? { ...rest, detail: truncate(detail, maxChars) } : rest)));
    const fits = (maxChars) => Buffer.byteLength(written(maxChars)) <= MAX_DOTENV_TEXT_BYTES;
    // The longest cut that fits, between none (the marker alone) and the longest detail.
    let [low, high] = [0, Math.max(0, ...redacted.map(({ detail }) => String(detail ?? '').length))];
    while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (fits(middle))
            low = middle;
        else
            high = middle - 1;
    }
    return written(low);
}
/** GitLab's escapes of `$` and `%` (dotenvValue). */
function doubleSigns(text) {
    return text.replace(/[$%]/g, (sign) => sign + sign);
}
/**
 * GitLab expands `$NAME`, `${NAME}` and `%NAME%` in a dotenv report's values in the jobs that read
 * them, so API text could pull a CI variable (a token) into `$GATE_MESSAGE`: each `$` and `%` is
 * doubled, GitLab's escapes (the runner turns `$$` back into `$`; `%%` stays), and a cut never
 * leaves one of a pair alone.
 */
function dotenvValue(text, maxBytes) {
    const value = truncateBytes(doubleSigns(text), maxBytes);
    if (!value.endsWith(CUT_MARKER))
        return value;
    const kept = value.slice(0, -CUT_MARKER.length);
    const lastRun = /([$%])\1*$/.exec(kept)?.[0] ?? '';
    return lastRun.length % 2 === 1 ? kept.slice(0, -1) + CUT_MARKER : value;
}
/**
 * Writes `text`, then resolves once it has been handed over (a pipe's writes are asynchronous in
 * Node, and process.exit() drops what is still queued): undefined when it was, or when the reader
 * left (EPIPE: `| head` took what it wanted); else the write's error (ENOSPC, EIO, EBADF), which
 * means the result is lost.
 */
function handOver(stream, text) {
    return new Promise((resolve) => {
        let failure;
        const note = (error) => {
            // A write queued behind the one that failed hears only that the stream was destroyed.
            const earlier = failure && failure.code !== 'ERR_STREAM_DESTROYED';
            if (error && !earlier)
                failure = error;
        };
        stream.write(text, note);
        stream.write('', (error) => {
            note(error);
            const code = failure && (failure.code ?? 'an error without a code');
            resolve(code === 'EPIPE' ? undefined : code);
        });
    });
}

;// CONCATENATED MODULE: ./src/command/result-files.ts
/*
 * The command's result files over a run: checked before the gate runs, marked "running" at once
 * (a file an earlier run left never goes on claiming that run's outcome while this one waits, nor
 * after it is killed), and written with the result once standard output has drained, with the exit
 * code the command really ends with. A path the user named (--summary, --dotenv) that cannot take
 * a write fails the run; the default summary (GITHUB_STEP_SUMMARY, inside GitHub Actions) is a
 * warning. No message repeats a path: a secret is sometimes given where a path belongs.
 */







/**
 * Which of the result files can take a write, and why the others cannot, found before the gate
 * runs.
 */
function checkResultTargets(targets) {
    const check = { writable: {}, problems: [], warnings: [] };
    const { summary, dotenvFile } = targets;
    const summaryProblem = summary && outputFileProblem(summary.path, true);
    if (summary && !summary.append && dotenvFile && sameFile(summary.path, dotenvFile)) {
        // The dotenv file is kept: the jobs after this one read why it failed there.
        check.problems.push('--summary and --dotenv name the same file, which each would overwrite: give each a path of its own');
    }
    else if (summary && summaryProblem) {
        if (summary.append)
            check.warnings.push(defaultSummaryLeftOut(summaryProblem));
        else
            check.problems.push(`--summary: ${summaryProblem}`);
    }
    else {
        check.writable.summary = summary;
    }
    const dotenvProblem = dotenvFile && outputFileProblem(dotenvFile, true);
    if (dotenvProblem)
        check.problems.push(`--dotenv: ${dotenvProblem}`);
    else
        check.writable.dotenvFile = dotenvFile;
    return check;
}
/** Whether two paths name one file: the same path, or the same file under two names. */
function sameFile(a, b) {
    if ((0,external_node_path_namespaceObject.resolve)(a) === (0,external_node_path_namespaceObject.resolve)(b))
        return true;
    try {
        const [first, second] = [(0,external_node_fs_namespaceObject.statSync)(a), (0,external_node_fs_namespaceObject.statSync)(b)];
        return first.dev === second.dev && first.ino === second.ino;
    }
    catch {
        return false;
    }
}
const defaultSummaryLeftOut = (problem) => `GITHUB_STEP_SUMMARY: ${problem}; the job summary is left out (give --summary FILE to write it elsewhere)`;
/**
 * Replaces what an earlier run left in the files with a "running" record, at once and before any
 * request: a run killed mid-wait (SIGKILL, a runner's time-out) leaves that, never an earlier
 * `GATE_OUTCOME=success`. The step summary inside GitHub Actions is the step's own and appended
 * to: it is left alone. A file that does not take it is one more problem of `check` (exit 2), and
 * is no longer written.
 */
function markRunning(check, redactor, startedAt) {
    const { summary, dotenvFile } = check.writable;
    const since = startedAt.toISOString();
    const running = `neon-gate started at ${since} and has not ended; a file still saying this means it was killed before it could write its result`;
    const attempts = [];
    if (summary && !summary.append) {
        attempts.push([
            '--summary',
            () => (0,external_node_fs_namespaceObject.writeFileSync)(summary.path, `<h2>Neon operations gate</h2>\n\n⏳ running: ${running}\n`),
            () => delete check.writable.summary
        ]);
    }
    if (dotenvFile) {
        const lines = [
            ['outcome', 'running'],
            ['message', running]
        ];
        attempts.push([
            '--dotenv',
            () => (0,external_node_fs_namespaceObject.writeFileSync)(dotenvFile, dotenvLines(lines, redactor)),
            () => delete check.writable.dotenvFile
        ]);
    }
    for (const [flag, write, drop] of attempts) {
        try {
            write();
        }
        catch (error) {
            check.problems.push(`${flag}: it cannot be written (${codeOf(error)})`);
            drop();
        }
    }
}
const codeOf = (error) => error.code ?? 'an error without a code';
/** A run that passed fails when a file the user named cannot hold its result. */
const FILE_FAILURE_CODE = 2;
const filesFailed = (failed) => `Could not write the result files: ${failed.join('; ')}`;
/**
 * Writes the summary, then the dotenv file, whatever the outcome (a later job reads why it failed),
 * bad input included; each replaces what is there (the step's summary inside GitHub Actions is
 * appended to). A named summary that cannot be written turns a success into exit 2, and the
 * dotenv file, written last, carries that code. One that fails does not keep the other from being
 * written.
 */
async function writeResultFiles(report, { summary, dotenvFile }, context) {
    const result = { code: context.code, failed: [], warnings: [] };
    const failedNamed = (problem) => {
        result.failed.push(problem);
        if (result.code === 0)
            result.code = FILE_FAILURE_CODE;
    };
    if (summary) {
        const markdown = context.redactor.redact(run_report_renderSummaryWithin(report, MAX_SUMMARY_BYTES));
        try {
            await (summary.append ? promises_namespaceObject.appendFile : promises_namespaceObject.writeFile)(summary.path, markdown);
        }
        catch (error) {
            if (!summary.append)
                failedNamed(`--summary: ${codeOf(error)}`);
            else
                result.warnings.push(defaultSummaryLeftOut(`it cannot be written (${codeOf(error)})`));
        }
    }
    if (dotenvFile) {
        const message = result.failed.length > 0 ? filesFailed(result.failed) : context.message;
        try {
            await (0,promises_namespaceObject.writeFile)(dotenvFile, dotenvText(report, { ...context, code: result.code, message }));
        }
        catch (error) {
            failedNamed(`--dotenv: ${codeOf(error)}`);
        }
    }
    return result;
}

;// CONCATENATED MODULE: ./src/command/main.ts













/** Colour unless NO_COLOR is set to something (no-color.org: an empty value does not count). */
const colourWanted = (env) => !env.NO_COLOR;
/** Runs the command; resolves to its exit code, never rejects. */
async function runCommand(argv, environment) {
    const { env } = environment;
    const redactor = new Redactor();
    // A secret in the environment (the key) is known at once: redacted before any message could
    // quote it.
    addSecretInputs(redactor, (name) => variableValue(name, env));
    const voice = {
        color: colourWanted(env),
        clean: (text) => untrusted_text_forLogLines(forLog(redactor.redact(text))),
        redactor
    };
    let parsed;
    try {
        parsed = parseCommandLine(argv, env);
    }
    catch (error) {
        return endWithError(error, undefined, resultTargetsOf(argv, env), environment, voice);
    }
    if (!('request' in parsed))
        return helpOrVersion('help' in parsed, environment);
    const { request } = parsed;
    // A secret given as a flag (a database URL) is known at once too.
    addSecretInputs(redactor, (name) => request.values[name]);
    const progress = new Progress(environment.stderr, { quiet: request.quiet, ...voice });
    const output = { ...environment, progress };
    // --timeout bounds the whole run, the reading of its secrets included. SIGINT and SIGTERM while
    // the command reads its secrets or runs the gate: the first aborts what is in flight (the result
    // is still reported and written); a second ends the command at once: the user means it.
    const gateRun = new GateRun({
        logger: progress,
        redactor,
        clock: environment.clock,
        signals: environment.signals,
        onRepeatedSignal: (signal) => process.exit(EXIT[signal])
    });
    const files = checkResultTargets(request);
    for (const warning of files.warnings)
        progress.warning(warning);
    // Before anything can take time: a file of an earlier run stops claiming that run's outcome.
    if (files.problems.length === 0) {
        markRunning(files, redactor, new Date(environment.clock.wallNow()));
    }
    const { writable } = files;
    try {
        let inputs;
        try {
            if (files.problems.length > 0)
                throw new UsageError(files.problems.join('; '));
            inputs = await readInputs(request, environment, gateRun, redactor);
        }
        catch (error) {
            return await endWithError(error, gateRun.stoppedBy, files, output, voice);
        }
        const targets = { summary: writable.summary, dotenvFile: writable.dotenvFile };
        return await gateAndReport(inputs, { ...request, ...targets }, { ...output, redactor, gateRun });
    }
    catch (error) {
        // Nothing is expected here; the error line says what it was.
        return endWithError(error, undefined, files, output, voice);
    }
    finally {
        gateRun.end();
    }
}
/** --help or --version: the text on standard output, and exit 2 if it could not be written. */
async function helpOrVersion(help, { stdout, stderr }) {
    const lost = await handOver(stdout, help ? HELP_TEXT : VERSION_TEXT);
    if (!lost)
        return EXIT.success;
    stderr.write(`error: ${outputLost(lost)}\n`);
    return EXIT.usage;
}
/**
 * The command ended on an error of its own, mostly before the gate ran: bad flags or input (exit
 * 2), a signal while a secret was read, or something unexpected (exit 3). One error line on
 * standard error, nothing more on standard output, and the result files that can be written, so
 * that a later job reads why (a file from an earlier run never stays claiming that run's outcome).
 */
async function endWithError(error, stoppedBy, targets, { stderr, progress }, { color, clean, redactor }) {
    const message = messageOf(error);
    const usage = error instanceof UsageError || error instanceof InputError;
    const report = error instanceof CancelledError && stoppedBy
        ? errorReport(`${message}, before the gate started`, redactor, { outcome: 'cancelled' })
        : usage
            ? errorReport(message, redactor, { errorCause: 'input' })
            : errorReport(`neon-gate failed unexpectedly: ${message}`, redactor);
    const code = exitCodeOf(report, stoppedBy);
    // Errors stand whatever --quiet says; the request's own progress clears its line first.
    const lines = progress ?? new Progress(stderr, { quiet: true, color, clean });
    lines.error(report.error);
    if (code === EXIT.usage)
        stderr.write('Run neon-gate --help for the flags.\n');
    // Read from a command line that did not parse, the paths were not checked yet: each is written.
    const unchecked = Array.isArray(targets);
    const checks = unchecked ? targets.map(checkResultTargets) : [targets];
    await writeErrorRecords(report, checks, lines, { redactor, code, unchecked });
    return code;
}
/** The error's record in each set of result files; each problem said once. */
async function writeErrorRecords(report, checks, lines, { redactor, code, unchecked }) {
    const said = new Set();
    const once = (kind, text) => {
        if (!said.has(text))
            lines[kind](text);
        said.add(text);
    };
    for (const check of checks) {
        if (unchecked)
            for (const warning of check.warnings)
                once('warning', warning);
        for (const problem of check.problems) {
            if (!report.error?.includes(problem))
                once('error', problem);
        }
        const written = await writeResultFiles(report, check.writable, { redactor, code });
        for (const warning of written.warnings)
            once('warning', warning);
        if (written.failed.length > 0)
            once('error', filesFailed(written.failed));
    }
}
async function gateAndReport(inputs, request, { stdout, progress, redactor, gateRun }) {
    const report = await gateRun.gate(inputs, request.naming);
    progress.finish();
    const line = run_report_errorLine(report);
    if (line)
        progress.error(line);
    let code = exitCodeOf(report, gateRun.stoppedBy);
    let message;
    // The files are final only once standard output is out, and say how the command really ends.
    const lost = await handOver(stdout, standardOutput(report, request.output, redactor));
    if (lost) {
        message = outputLost(lost);
        progress.error(message);
        code = EXIT.usage;
    }
    const written = await writeResultFiles(report, request, { redactor, code, message });
    for (const warning of written.warnings)
        progress.warning(warning);
    if (written.failed.length > 0)
        progress.error(filesFailed(written.failed));
    return written.code;
}
/** Standard output failed (a full disk, an I/O error, a closed descriptor): the result is lost. */
const outputLost = (code) => `Could not write standard output (${code}): the result is lost; the exit code says so, not how the gate ended`;


/***/ }),

/***/ 6781:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  M7: () => (/* binding */ earliestWallNow),
  ml: () => (/* binding */ systemClock),
  zc: () => (/* binding */ timeLimit),
  dn: () => (/* binding */ withinTime)
});

;// CONCATENATED MODULE: external "node:perf_hooks"
const external_node_perf_hooks_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:perf_hooks");
;// CONCATENATED MODULE: ./src/domain/clock.ts

/**
 * The earliest wall time (epoch ms) both clocks allow: `wallNow()`, or the runner's where the API's
 * (its Date header) is ahead of it. An age measured to it is never longer than both clocks allow,
 * so a wrong Date header makes nothing look older than it is.
 */
function earliestWallNow(clock) {
    return clock.wallNow() - Math.max(0, clock.disagreementMs?.() ?? 0);
}
const systemClock = {
    now: () => external_node_perf_hooks_namespaceObject.performance.now(),
    wallNow: () => Date.now(),
    sleep: (ms, signal) => new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal?.reason);
        };
        const timer = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
        }, ms);
        signal?.addEventListener('abort', onAbort, { once: true });
    })
};
/**
 * A signal that aborts with `reason()` once `ms` have passed on `clock`, or with `signal`'s reason
 * if that aborts first. Release it when the work is over, so that no timer outlives it.
 */
function timeLimit(clock, ms, reason, signal) {
    const cut = new AbortController();
    const timer = new AbortController();
    clock.sleep(ms, timer.signal).then(() => cut.abort(reason()), ignore);
    return {
        signal: signal ? AbortSignal.any([signal, cut.signal]) : cut.signal,
        release: () => timer.abort()
    };
}
/**
 * `work` within a time limit (`timeLimit`): it rejects with the limit's reason when the limit
 * comes first, even while `work` goes on, so that a request that does not listen cannot hold the
 * run.
 */
async function withinTime(clock, ms, reason, work, signal) {
    const limit = timeLimit(clock, ms, reason, signal);
    const stopped = new Promise((_, reject) => {
        const stop = () => reject(limit.signal.reason);
        if (limit.signal.aborted)
            stop();
        else
            limit.signal.addEventListener('abort', stop, { once: true });
    });
    stopped.catch(ignore);
    const working = work(limit.signal);
    working.catch(ignore);
    try {
        return await Promise.race([working, stopped]);
    }
    finally {
        limit.release();
    }
}
function ignore() { }


/***/ }),

/***/ 6982:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("crypto");

/***/ }),

/***/ 2250:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("dns");

/***/ }),

/***/ 4434:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("events");

/***/ }),

/***/ 9896:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("fs");

/***/ }),

/***/ 9278:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("net");

/***/ }),

/***/ 6928:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("path");

/***/ }),

/***/ 2203:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("stream");

/***/ }),

/***/ 3193:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("string_decoder");

/***/ }),

/***/ 4756:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("tls");

/***/ }),

/***/ 9023:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("util");

/***/ }),

/***/ 8253:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("util/types");

/***/ })

/******/ });
/************************************************************************/
/******/ // The module cache
/******/ var __webpack_module_cache__ = {};
/******/ 
/******/ // The require function
/******/ function __nccwpck_require__(moduleId) {
/******/ 	// Check if module is in cache
/******/ 	var cachedModule = __webpack_module_cache__[moduleId];
/******/ 	if (cachedModule !== undefined) {
/******/ 		return cachedModule.exports;
/******/ 	}
/******/ 	// Create a new module (and put it into the cache)
/******/ 	var module = __webpack_module_cache__[moduleId] = {
/******/ 		// no module.id needed
/******/ 		// no module.loaded needed
/******/ 		exports: {}
/******/ 	};
/******/ 
/******/ 	// Execute the module function
/******/ 	var threw = true;
/******/ 	try {
/******/ 		__webpack_modules__[moduleId](module, module.exports, __nccwpck_require__);
/******/ 		threw = false;
/******/ 	} finally {
/******/ 		if(threw) delete __webpack_module_cache__[moduleId];
/******/ 	}
/******/ 
/******/ 	// Return the exports of the module
/******/ 	return module.exports;
/******/ }
/******/ 
/******/ // expose the modules object (__webpack_modules__)
/******/ __nccwpck_require__.m = __webpack_modules__;
/******/ 
/************************************************************************/
/******/ /* webpack/runtime/asset-relocator-loader */
/******/ if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = decodeURIComponent(new URL('.', import.meta.url).pathname).slice(import.meta.url.match(/^file:\/\/\/\w:/) ? 1 : 0, -1) + "/";
/******/ 
/******/ /* webpack/runtime/async module */
/******/ (() => {
/******/ 	var webpackQueues = typeof Symbol === "function" ? Symbol("webpack queues") : "__webpack_queues__";
/******/ 	var webpackExports = typeof Symbol === "function" ? Symbol("webpack exports") : "__webpack_exports__";
/******/ 	var webpackError = typeof Symbol === "function" ? Symbol("webpack error") : "__webpack_error__";
/******/ 	var resolveQueue = (queue) => {
/******/ 		if(queue && queue.d < 1) {
/******/ 			queue.d = 1;
/******/ 			queue.forEach((fn) => (fn.r--));
/******/ 			queue.forEach((fn) => (fn.r-- ? fn.r++ : fn()));
/******/ 		}
/******/ 	}
/******/ 	var wrapDeps = (deps) => (deps.map((dep) => {
/******/ 		if(dep !== null && typeof dep === "object") {
/******/ 			if(dep[webpackQueues]) return dep;
/******/ 			if(dep.then) {
/******/ 				var queue = [];
/******/ 				queue.d = 0;
/******/ 				dep.then((r) => {
/******/ 					obj[webpackExports] = r;
/******/ 					resolveQueue(queue);
/******/ 				}, (e) => {
/******/ 					obj[webpackError] = e;
/******/ 					resolveQueue(queue);
/******/ 				});
/******/ 				var obj = {};
/******/ 				obj[webpackQueues] = (fn) => (fn(queue));
/******/ 				return obj;
/******/ 			}
/******/ 		}
/******/ 		var ret = {};
/******/ 		ret[webpackQueues] = x => {};
/******/ 		ret[webpackExports] = dep;
/******/ 		return ret;
/******/ 	}));
/******/ 	__nccwpck_require__.a = (module, body, hasAwait) => {
/******/ 		var queue;
/******/ 		hasAwait && ((queue = []).d = -1);
/******/ 		var depQueues = new Set();
/******/ 		var exports = module.exports;
/******/ 		var currentDeps;
/******/ 		var outerResolve;
/******/ 		var reject;
/******/ 		var promise = new Promise((resolve, rej) => {
/******/ 			reject = rej;
/******/ 			outerResolve = resolve;
/******/ 		});
/******/ 		promise[webpackExports] = exports;
/******/ 		promise[webpackQueues] = (fn) => (queue && fn(queue), depQueues.forEach(fn), promise["catch"](x => {}));
/******/ 		module.exports = promise;
/******/ 		body((deps) => {
/******/ 			currentDeps = wrapDeps(deps);
/******/ 			var fn;
/******/ 			var getResult = () => (currentDeps.map((d) => {
/******/ 				if(d[webpackError]) throw d[webpackError];
/******/ 				return d[webpackExports];
/******/ 			}))
/******/ 			var promise = new Promise((resolve) => {
/******/ 				fn = () => (resolve(getResult));
/******/ 				fn.r = 0;
/******/ 				var fnQueue = (q) => (q !== queue && !depQueues.has(q) && (depQueues.add(q), q && !q.d && (fn.r++, q.push(fn))));
/******/ 				currentDeps.map((dep) => (dep[webpackQueues](fnQueue)));
/******/ 			});
/******/ 			return fn.r ? promise : getResult();
/******/ 		}, (err) => ((err ? reject(promise[webpackError] = err) : outerResolve(exports)), resolveQueue(queue)));
/******/ 		queue && queue.d < 0 && (queue.d = 0);
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/define property getters */
/******/ (() => {
/******/ 	// define getter functions for harmony exports
/******/ 	__nccwpck_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/ensure chunk */
/******/ (() => {
/******/ 	__nccwpck_require__.f = {};
/******/ 	// This file contains only the entry chunk.
/******/ 	// The chunk loading function for additional chunks
/******/ 	__nccwpck_require__.e = (chunkId) => {
/******/ 		return Promise.all(Object.keys(__nccwpck_require__.f).reduce((promises, key) => {
/******/ 			__nccwpck_require__.f[key](chunkId, promises);
/******/ 			return promises;
/******/ 		}, []));
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/get javascript chunk filename */
/******/ (() => {
/******/ 	// This function allow to reference async chunks
/******/ 	__nccwpck_require__.u = (chunkId) => {
/******/ 		// return url for filenames based on template
/******/ 		return "" + chunkId + ".index.js";
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/hasOwnProperty shorthand */
/******/ (() => {
/******/ 	__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ })();
/******/ 
/******/ /* webpack/runtime/import chunk loading */
/******/ (() => {
/******/ 	// no baseURI
/******/ 	
/******/ 	// object to store loaded and loading chunks
/******/ 	// undefined = chunk not loaded, null = chunk preloaded/prefetched
/******/ 	// [resolve, Promise] = chunk loading, 0 = chunk loaded
/******/ 	var installedChunks = {
/******/ 		792: 0
/******/ 	};
/******/ 	
/******/ 	var installChunk = (data) => {
/******/ 		var {ids, modules, runtime} = data;
/******/ 		// add "modules" to the modules object,
/******/ 		// then flag all "ids" as loaded and fire callback
/******/ 		var moduleId, chunkId, i = 0;
/******/ 		for(moduleId in modules) {
/******/ 			if(__nccwpck_require__.o(modules, moduleId)) {
/******/ 				__nccwpck_require__.m[moduleId] = modules[moduleId];
/******/ 			}
/******/ 		}
/******/ 		if(runtime) runtime(__nccwpck_require__);
/******/ 		for(;i < ids.length; i++) {
/******/ 			chunkId = ids[i];
/******/ 			if(__nccwpck_require__.o(installedChunks, chunkId) && installedChunks[chunkId]) {
/******/ 				installedChunks[chunkId][0]();
/******/ 			}
/******/ 			installedChunks[ids[i]] = 0;
/******/ 		}
/******/ 	
/******/ 	}
/******/ 	
/******/ 	__nccwpck_require__.f.j = (chunkId, promises) => {
/******/ 			// import() chunk loading for javascript
/******/ 			var installedChunkData = __nccwpck_require__.o(installedChunks, chunkId) ? installedChunks[chunkId] : undefined;
/******/ 			if(installedChunkData !== 0) { // 0 means "already installed".
/******/ 	
/******/ 				// a Promise means "currently loading".
/******/ 				if(installedChunkData) {
/******/ 					promises.push(installedChunkData[1]);
/******/ 				} else {
/******/ 					if(true) { // all chunks have JS
/******/ 						// setup Promise in chunk cache
/******/ 						var promise = import("./" + __nccwpck_require__.u(chunkId)).then(installChunk, (e) => {
/******/ 							if(installedChunks[chunkId] !== 0) installedChunks[chunkId] = undefined;
/******/ 							throw e;
/******/ 						});
/******/ 						var promise = Promise.race([promise, new Promise((resolve) => (installedChunkData = installedChunks[chunkId] = [resolve]))])
/******/ 						promises.push(installedChunkData[1] = promise);
/******/ 					}
/******/ 				}
/******/ 			}
/******/ 	};
/******/ 	
/******/ 	// no prefetching
/******/ 	
/******/ 	// no preloaded
/******/ 	
/******/ 	// no external install chunk
/******/ 	
/******/ 	// no on chunks loaded
/******/ })();
/******/ 
/************************************************************************/
/******/ 
/******/ // startup
/******/ // Load entry module and return exports
/******/ // This entry module used 'module' so it can't be inlined
/******/ var __webpack_exports__ = __nccwpck_require__(1585);
/******/ __webpack_exports__ = await __webpack_exports__;
/******/ 

//# sourceMappingURL=index.js.map