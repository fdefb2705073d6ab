// The official openai SDK client -> toolwire serve -> a scripted openai upstream.
import { openaiClientSuite } from './openai_client.mjs';

openaiClientSuite('openai');
