// The official `anthropic` SDK client through `toolwire serve` to a scripted openai-dialect upstream.
import { anthropicClientSuite } from './anthropic_client.mjs';

anthropicClientSuite('openai');
