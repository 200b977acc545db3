import { requestData, requestDataWithStatus } from './http';
import type { DataOf, QueryOf } from './schema';
import type { Conversion, ConversionPage, ConvertImageRequest, ConvertVideoRequest } from './types';

/** A conversion as asked for: `created` false when the server answered 200 with the same conversion, asked before. */
export interface Requested {
  conversion: Conversion;
  created: boolean;
}

const asked = ({ status, data }: { status: number; data: Conversion }): Requested => ({ conversion: data, created: status === 202 });

/**
 * Issue #15: POST /convert/image and /convert/video queue a conversion (202, or 200 with the one
 * already queued, running or done for the same version and parameters); GET /convert/status/:id
 * tells how it goes; POST …/cancel stops it.
 */
export const conversionsApi = {
  image: async (body: ConvertImageRequest) => asked(await requestDataWithStatus<DataOf<'/convert/image', 'post'>>('POST', '/convert/image', { body })),
  video: async (body: ConvertVideoRequest) => asked(await requestDataWithStatus<DataOf<'/convert/video', 'post'>>('POST', '/convert/video', { body })),
  get: (id: number) => requestData<Conversion>('GET', `/convert/status/${id}`),
  cancel: (id: number) => requestData<DataOf<'/convert/status/{id}/cancel', 'post'>>('POST', `/convert/status/${id}/cancel`),
  list: (query: QueryOf<'/convert/jobs', 'get'>) =>
    requestData<ConversionPage>('GET', '/convert/jobs', { query }),
};
export type ConversionsApi = typeof conversionsApi;
