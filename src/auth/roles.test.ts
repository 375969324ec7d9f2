import { describe, expect, it } from 'vitest';
import { mayAssignRole } from './roles.js';

/** Dependency-free, shared by the routes and the dashboard (the organization suite exercises it over HTTP). */
describe('role rules', () => {
  it('admins manage roles below owner; only an owner grants or takes owner', () => {
    expect(mayAssignRole('admin', { to: 'member' })).toBe(true);
    expect(mayAssignRole('admin', { from: 'viewer', to: 'admin' })).toBe(true);
    expect(mayAssignRole('admin', { to: 'owner' })).toBe(false);
    expect(mayAssignRole('admin', { from: 'owner', to: 'member' })).toBe(false);
    expect(mayAssignRole('admin', { from: 'owner' })).toBe(false);
    expect(mayAssignRole('owner', { to: 'owner' })).toBe(true);
    expect(mayAssignRole('owner', { from: 'owner', to: 'viewer' })).toBe(true);
  });
});
