import './telemetry';
import { runMain } from '@gateway/runtime';
import { readConfig } from './config';
import { startSignup } from './server';

runMain('signup', () => readConfig(), startSignup);
