// The AWS SDK's Bedrock runtime client -> toolwire serve -> a scripted bedrock upstream.
import { bedrockClientSuite } from './bedrock_client.mjs';

bedrockClientSuite('bedrock');
