/**
 * The shapes of S3's multipart parts and bucket CORS rules, as every object store and the uploads repository
 * (the local store's part and CORS tables) speak them.
 */
/** seed 2.3: the rule set of the bucket CORS configuration, in S3's own shape. */
export interface CorsRule {
  AllowedMethods: string[];
  AllowedOrigins: string[];
  AllowedHeaders?: string[];
  ExposeHeaders?: string[];
  MaxAgeSeconds?: number;
}

export interface StoredPart {
  PartNumber: number;
  ETag: string;
  Size: number;
}
