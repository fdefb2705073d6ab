// The official openai SDK client -> toolwire serve -> a scripted anthropic upstream.
import { openaiClientSuite } from './openai_client.mjs';

openaiClientSuite('anthropic');
