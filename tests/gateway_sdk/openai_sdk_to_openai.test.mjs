// The official `openai` SDK client through `toolwire serve` to a scripted openai-dialect upstream.
import { openaiClientSuite } from './openai_client.mjs';

openaiClientSuite('openai');
