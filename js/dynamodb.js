// DynamoDB: the Big Segment store in LaunchDarkly's DynamoDB schema (src/segments/dynamodb.rs),
// and the host adapter for the AWS SDK for JavaScript v3. cutover never imports the SDK: the
// caller passes its client and its GetItemCommand class.
import * as wasm from './wasm/cutover.js';
import { nativeStoreObject } from './segments.js';
import { describe } from './util.js';

/**
 * A Big Segment store over a DynamoDB table as LaunchDarkly's Relay Proxy writes it: one
 * GetItem per membership query and per metadata read, through `host.getItem(input)`.
 */
export function dynamoDbBigSegmentStore(host, storeOptions) {
  return nativeStoreObject(wasm.NativeStore.dynamoDb(host, storeOptions));
}

/** @aws-sdk/client-dynamodb v3: `client.send(new GetItemCommand(input))`. */
export function awsDynamoDbHost(client, GetItemCommand) {
  if (client === null || typeof client !== 'object' || typeof client.send !== 'function') {
    throw new TypeError(`awsDynamoDbHost: client must be a DynamoDBClient (with a send method), ${describe(client)}`);
  }
  if (typeof GetItemCommand !== 'function') {
    throw new TypeError(`awsDynamoDbHost: GetItemCommand must be the SDK's GetItemCommand class, ${describe(GetItemCommand)}`);
  }
  return Object.freeze({ getItem: (input) => client.send(new GetItemCommand(input)) });
}
