// openai SDK -> toolwire serve -> anthropic upstream (mock). See openai_client_suite.mjs.
import { openaiClientSuite } from './openai_client_suite.mjs';

openaiClientSuite('anthropic');
