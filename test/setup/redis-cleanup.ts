// Runs in every test file: after the file's own afterAll hooks have closed its apps (vitest runs
// after-hooks in reverse order of registration, and this one is registered first), the keys of
// every namespace the file created are deleted.
import { afterAll } from 'vitest';
import { removeTrackedKeys } from '../helpers/redis-namespaces.ts';

afterAll(removeTrackedKeys);
