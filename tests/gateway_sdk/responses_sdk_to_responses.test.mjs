// The official openai SDK's Responses API -> toolwire serve -> a scripted responses upstream.
import { responsesClientSuite } from './responses_client.mjs';

responsesClientSuite('responses');
