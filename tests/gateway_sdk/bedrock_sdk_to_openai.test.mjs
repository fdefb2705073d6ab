// The AWS SDK's Bedrock runtime client -> toolwire serve -> a scripted openai upstream.
import { bedrockClientSuite } from './bedrock_client.mjs';

bedrockClientSuite('openai');
