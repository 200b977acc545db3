import type { DeepStringShape } from '../shape';
import common from './common';
import shell from './shell';
import auth from './auth';
import account from './account';
import errors from './errors';
import library from './library';
import search from './search';
import asset from './asset';
import upload from './upload';
import shares from './shares';
import drives from './drives';
import billing from './billing';
import team from './team';
import convert from './convert';
import zip from './zip';
import activity from './activity';
import trash from './trash';
import generate from './generate';
import housekeeping from './housekeeping';

/** English, the source of truth: every other language has exactly these keys (DeepStringShape). */
const en = { common, shell, auth, account, errors, library, search, asset, upload, shares, drives, billing, team, convert, zip, activity, trash, generate, housekeeping };
export default en;

/** What every language's catalogue must look like. */
export type Messages = DeepStringShape<typeof en>;
