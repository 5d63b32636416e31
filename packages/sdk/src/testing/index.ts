/**
 * `@foxbell/sdk/testing`: a Foxbell service in memory for the tests of an app that sends
 * notifications. Give its `fetch` to a real client; see docs/testing.md.
 */
export {
  type FakeDevice,
  FakeFoxbell,
  type FakeFoxbellOptions,
  type RecordedRequest,
  type RecordedSend,
  responses,
  type ScriptedResponse,
} from './fake-service.js';
