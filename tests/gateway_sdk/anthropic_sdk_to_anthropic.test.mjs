// The official `anthropic` SDK client through `toolwire serve` to a scripted anthropic-dialect upstream.
import { anthropicClientSuite } from './anthropic_client.mjs';

anthropicClientSuite('anthropic');
