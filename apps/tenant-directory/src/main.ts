import './telemetry';
import { runMain } from '@gateway/runtime';
import { readConfig } from './config';
import { startTenantDirectory } from './server';

runMain('tenant-directory', () => readConfig(), startTenantDirectory);
