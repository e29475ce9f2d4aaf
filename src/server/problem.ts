import type { FastifyReply } from 'fastify';
import { problemBody, type HttpProblem } from '../core/index.ts';

/** Sends an HTTP problem from the error catalog: its status and `{error: {code, message}}`. */
export function sendProblem(reply: FastifyReply, problem: HttpProblem): FastifyReply {
  return reply.code(problem.status).send(problemBody(problem));
}
