// Google's @google/genai SDK -> toolwire serve -> a scripted openai upstream.
import { geminiClientSuite } from './genai_client.mjs';

geminiClientSuite('openai');
