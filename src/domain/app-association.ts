import type { AppAssociationConfig } from '../config.js';

/**
 * The files that tie this site to its mobile apps (issue #13), built from config. Pure: no I/O.
 *
 * - iOS universal links and shared web credentials: apple-app-site-association
 *   (https://developer.apple.com/documentation/xcode/supporting-associated-domains), the iOS 13+
 *   form: `applinks.details[]` with `appIDs` and `components`, `webcredentials.apps`.
 * - Android App Links and credential sharing: Digital Asset Links' assetlinks.json
 *   (https://developer.android.com/training/app-links/verify-android-applinks).
 */

/**
 * The pages an app may open in place of the browser: the public share pages (`/s/<token>`) and the
 * web client's asset pages (`/asset/<id>`, web/src/router.ts). Everything else stays in the browser.
 */
export const APP_LINK_COMPONENTS = [
  { '/': '/s/*', comment: 'Shared asset pages' },
  { '/': '/asset/*', comment: 'Asset pages' },
] as const;

export interface AppleAppSiteAssociation {
  applinks: { details: Array<{ appIDs: string[]; components: Array<{ '/': string; comment: string }> }> };
  webcredentials: { apps: string[] };
}

export function appleAppSiteAssociation(config: AppAssociationConfig): AppleAppSiteAssociation | null {
  if (config.iosAppIds.length === 0) return null;
  return {
    applinks: { details: [{ appIDs: [...config.iosAppIds], components: APP_LINK_COMPONENTS.map((c) => ({ ...c })) }] },
    webcredentials: { apps: [...config.iosAppIds] },
  };
}

export interface AssetLinkStatement {
  relation: string[];
  target: { namespace: 'android_app'; package_name: string; sha256_cert_fingerprints: string[] };
}

/** handle_all_urls: App Links (verified, no chooser); get_login_creds: the app may use the passwords saved for this site. */
export function androidAssetLinks(config: AppAssociationConfig): AssetLinkStatement[] | null {
  if (!config.android) return null;
  return [
    {
      relation: ['delegate_permission/common.handle_all_urls', 'delegate_permission/common.get_login_creds'],
      target: { namespace: 'android_app', package_name: config.android.packageName, sha256_cert_fingerprints: [...config.android.fingerprints] },
    },
  ];
}
