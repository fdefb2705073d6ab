// The official anthropic SDK client -> toolwire serve -> a scripted openai upstream.
import { anthropicClientSuite } from './anthropic_client.mjs';

anthropicClientSuite('openai');
