// The official openai SDK (Chat Completions) -> toolwire serve -> a scripted bedrock upstream.
import { openaiEgressSuite } from './openai_egress.mjs';

openaiEgressSuite('bedrock');
