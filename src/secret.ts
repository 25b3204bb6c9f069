/** Replaces every occurrence of the secret; applied to anything that came from the outside world. */
export function redactSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join('***') : text
}
