// The official anthropic SDK client -> toolwire serve -> a scripted anthropic upstream.
import { anthropicClientSuite } from './anthropic_client.mjs';

anthropicClientSuite('anthropic');
