// The official openai SDK's Responses API -> toolwire serve -> a scripted openai upstream.
import { responsesClientSuite } from './responses_client.mjs';

responsesClientSuite('openai');
