/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): a request whose declared body is over the limit is
 * answered 413 at once instead of being invited to send a body that would be refused; any other is
 * told to continue and handed to the server's request handler.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { writeAnswer, type AnswerHeaders } from './answer.js';
import { OPEN_ORIGIN } from './cors.js';
import { tooLargeAnswer } from './refusals.js';

/** `headersFor` adds headers of the request's own to the 413 (the path form's sandbox). */
export function answerExpectContinue(
  server: Server,
  bodyLimit: number,
  headersFor: (req: IncomingMessage) => AnswerHeaders = () => ({}),
): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length'] ?? 0) > bodyLimit) {
      writeAnswer(res, tooLargeAnswer(bodyLimit, OPEN_ORIGIN), { ...headersFor(req), connection: 'close' });
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
}
