/**
 * ua-parser-js 1.x ships no TypeScript declarations (2.x does, but is AGPL): the part of its
 * documented API (https://docs.uaparser.dev, v1 "getResult") that src/domain/browser-os.ts uses.
 */
declare module 'ua-parser-js' {
  export interface UAParserResult {
    ua: string;
    browser: { name?: string; version?: string; major?: string };
    engine: { name?: string; version?: string };
    os: { name?: string; version?: string };
    device: { type?: string; vendor?: string; model?: string };
    cpu: { architecture?: string };
  }
  export class UAParser {
    constructor(ua?: string);
    getResult(): UAParserResult;
  }
}
