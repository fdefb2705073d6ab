// Google's @google/genai SDK -> toolwire serve -> a scripted gemini upstream.
import { geminiClientSuite } from './genai_client.mjs';

geminiClientSuite('gemini');
