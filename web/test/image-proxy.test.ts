import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { forgetProxiedImages, isExternalImage, proxiedImageSrc } from '../src/api/image-proxy';
import { configureHttp } from '../src/api/http';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

const signedAnswer = (n: number, expires: number) =>
  json(200, { success: true, data: { url: `${window.location.origin}/api/image-proxy?url=x&expires=${expires}&signature=s${n}`, expires_at: expires } });

describe('external images through the signed image proxy', () => {
  const fetchMock = vi.fn<typeof fetch>();
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock);
    configureHttp({ token: () => 'jwt-token' });
    forgetProxiedImages();
  });
  afterEach(() => {
    fetchMock.mockReset();
    vi.unstubAllGlobals();
    configureHttp({ token: () => null });
  });

  it('tells external http(s) images from our own, data: and blob: URLs', () => {
    const origin = 'https://dam.example';
    expect(isExternalImage('https://lh3.googleusercontent.com/abc=s220', origin)).toBe(true);
    expect(isExternalImage('http://dam.example:8080/a.png', origin)).toBe(true);
    expect(isExternalImage('https://dam.example/media/versions/1/thumbnail?signature=x', origin)).toBe(false);
    expect(isExternalImage('/media/icons/image.svg', origin)).toBe(false);
    expect(isExternalImage('data:image/png;base64,AAAA', origin)).toBe(false);
    expect(isExternalImage('blob:https://dam.example/1234', origin)).toBe(false);
  });

  it('signs an external image once with its options, with the token, and reuses the URL until shortly before it expires', async () => {
    let now = 1_000_000;
    fetchMock.mockResolvedValueOnce(signedAnswer(1, now + 3600)).mockResolvedValueOnce(signedAnswer(2, now + 7200));
    const external = 'https://drive.example/thumb/1?sz=w200';
    const [a, b] = await Promise.all([proxiedImageSrc(external, { w: 200 }, () => now), proxiedImageSrc(external, { w: 200 }, () => now)]);
    expect(a).toContain('signature=s1');
    expect(b).toBe(a);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/image-proxy/sign');
    expect(init!.method).toBe('POST');
    expect((init!.headers as Record<string, string>).authorization).toBe('Bearer jwt-token');
    expect(JSON.parse(init!.body as string)).toEqual({ url: external, w: 200 });

    now += 3000;
    expect(await proxiedImageSrc(external, { w: 200 }, () => now)).toBe(a);
    now += 500; // 100 s left: signed again
    expect(await proxiedImageSrc(external, { w: 200 }, () => now)).toContain('signature=s2');
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('leaves our own URLs alone, and signs other options apart', async () => {
    expect(await proxiedImageSrc('/media/versions/3/thumbnail?signature=x')).toBe('/media/versions/3/thumbnail?signature=x');
    expect(fetchMock).not.toHaveBeenCalled();
    fetchMock.mockResolvedValueOnce(signedAnswer(1, Date.now() / 1000 + 3600)).mockResolvedValueOnce(signedAnswer(2, Date.now() / 1000 + 3600));
    const small = await proxiedImageSrc('https://img.example/a.jpg', { w: 64 });
    const webp = await proxiedImageSrc('https://img.example/a.jpg', { w: 64, format: 'webp' });
    expect(small).not.toBe(webp);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('passes a refusal on as an error and does not keep it', async () => {
    fetchMock.mockResolvedValueOnce(json(400, { error: 'Only http and https URLs are fetched', code: 'PROXY_TARGET_FORBIDDEN' }));
    await expect(proxiedImageSrc('https://img.example/b.png')).rejects.toMatchObject({ status: 400, code: 'PROXY_TARGET_FORBIDDEN' });
    fetchMock.mockResolvedValueOnce(signedAnswer(3, Date.now() / 1000 + 3600));
    expect(await proxiedImageSrc('https://img.example/b.png')).toContain('signature=s3');
  });
});
