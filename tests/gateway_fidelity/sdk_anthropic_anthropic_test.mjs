// @anthropic-ai/sdk -> toolwire serve -> anthropic upstream (mock). See anthropic_client_suite.mjs.
import { anthropicClientSuite } from './anthropic_client_suite.mjs';

anthropicClientSuite('anthropic');
