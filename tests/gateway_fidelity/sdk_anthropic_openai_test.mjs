// @anthropic-ai/sdk -> toolwire serve -> openai upstream (mock). See anthropic_client_suite.mjs.
import { anthropicClientSuite } from './anthropic_client_suite.mjs';

anthropicClientSuite('openai');
