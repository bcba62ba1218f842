/** Polls `cond` until it holds; throws `message` when `timeoutMs` passes first. */
export async function until(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 1000,
  message = 'condition not met in time',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(message);
    await new Promise((r) => setTimeout(r, 10));
  }
}
