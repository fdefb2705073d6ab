// openai SDK -> toolwire serve -> openai upstream (mock). See openai_client_suite.mjs.
import { openaiClientSuite } from './openai_client_suite.mjs';

openaiClientSuite('openai');
