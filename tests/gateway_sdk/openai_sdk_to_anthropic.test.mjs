// The official `openai` SDK client through `toolwire serve` to a scripted anthropic-dialect upstream.
import { openaiClientSuite } from './openai_client.mjs';

openaiClientSuite('anthropic');
