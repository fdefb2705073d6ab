// The official openai SDK (Chat Completions) -> toolwire serve -> a scripted gemini upstream.
import { openaiEgressSuite } from './openai_egress.mjs';

openaiEgressSuite('gemini');
