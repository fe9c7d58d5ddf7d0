// The team's members and invitations (docs/admin.md, Team and roles): invite by e-mail with a
// role (and, for staff, an employee of the company it was sent from), accept once within 7 days,
// change a role, remove a member. Removing a member (or taking their management role away) also
// ends their sessions and revokes the OAuth grants they approved for the team's companies, so
// nothing they set in motion keeps the access they no longer have.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { CredentialResolver } from '../../auth/credentials.js';
import { hashPassword } from '../../crypto/password.js';
import type { Databases } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { Account, Invitation, Membership } from '../../generated/prisma/client.js';
import type { Mode, TeamRole } from '../../generated/prisma/enums.js';
import { isId, newId } from '../../ids.js';
import { revokeAuthorizedApp } from '../credentials/index.js';
import { email as emailSchema, parseInput } from '../validation.js';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const TEAM_ROLES: readonly TeamRole[] = ['admin', 'staff', 'viewer'];

const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');

const inviteInput = z
  .object({
    email: emailSchema,
    role: z.enum(['admin', 'staff', 'viewer'], { message: 'must be admin, staff or viewer' }),
    employeeId: z.string().optional(),
  })
  .strict();

export interface MemberRow {
  membership: Membership;
  email: string;
}

/** The team's members (not the owner), oldest first, with their e-mail. */
export async function listMembers(dbs: Databases, teamAccountId: string): Promise<MemberRow[]> {
  const rows = await dbs.live.prisma.membership.findMany({
    where: { teamAccountId },
    include: { member: { select: { email: true } } },
    orderBy: { id: 'asc' },
  });
  return rows.map(({ member, ...membership }) => ({ membership, email: member.email }));
}

/** The e-mail of the team's owning account (the first row of the team page). */
export async function teamOwnerEmail(dbs: Databases, teamAccountId: string): Promise<string> {
  const owner = await dbs.live.prisma.account.findUniqueOrThrow({
    where: { id: teamAccountId },
    select: { email: true },
  });
  return owner.email;
}

/** Invitations neither accepted nor withdrawn, newest first (expired ones included, marked by expiresAt). */
export async function listOpenInvitations(dbs: Databases, teamAccountId: string): Promise<Invitation[]> {
  return dbs.live.prisma.invitation.findMany({
    where: { teamAccountId, acceptedAt: null, revokedAt: null },
    orderBy: { id: 'desc' },
    take: 100,
  });
}

/** Checks that a staff membership's employee is one of this company's (in this mode), else names the field. */
async function checkEmployee(dbs: Databases, o: { mode: Mode; companyId: string; employeeId?: string }) {
  const ok =
    isId(o.employeeId) &&
    (await dbs.forMode(o.mode).employee.findFirst({ where: { id: o.employeeId, companyId: o.companyId } }));
  if (!ok)
    throw new AppError('VALIDATION_ERROR', 'Invalid input', {
      details: [{ path: 'employeeId', message: 'choose an employee of this company' }],
    });
  return o.employeeId!;
}

/**
 * A new invitation and its token (to be put in the link, never stored: only its SHA-256 is). An
 * e-mail that is already a member, or the owner's, is a CONFLICT naming the field.
 */
export async function createInvitation(
  dbs: Databases,
  o: {
    teamAccountId: string;
    invitedById: string;
    mode: Mode;
    companyId: string;
    input: { email?: string; role?: string; employeeId?: string };
    now: Date;
  },
): Promise<{ invitation: Invitation; token: string }> {
  const data = parseInput(inviteInput, {
    email: o.input.email,
    role: o.input.role,
    ...(o.input.role === 'staff' ? { employeeId: o.input.employeeId ?? '' } : {}),
  });
  const employeeId =
    data.role === 'staff'
      ? await checkEmployee(dbs, { mode: o.mode, companyId: o.companyId, employeeId: data.employeeId })
      : null;
  const live = dbs.live.prisma;
  const existing = await live.account.findUnique({ where: { email: data.email } });
  if (existing?.id === o.teamAccountId)
    throw new AppError('CONFLICT', 'This is the owner’s e-mail', { details: { field: 'email' } });
  if (
    existing &&
    (await live.membership.findUnique({
      where: { teamAccountId_memberAccountId: { teamAccountId: o.teamAccountId, memberAccountId: existing.id } },
    }))
  )
    throw new AppError('CONFLICT', 'This person is already in the team', { details: { field: 'email' } });
  const token = randomBytes(32).toString('base64url');
  const invitation = await live.invitation.create({
    data: {
      id: newId(o.now.getTime()),
      teamAccountId: o.teamAccountId,
      email: data.email,
      role: data.role,
      mode: employeeId ? o.mode : null,
      employeeId,
      tokenHash: hashInvitationToken(token),
      invitedById: o.invitedById,
      expiresAt: new Date(o.now.getTime() + INVITATION_TTL_MS),
      createdAt: o.now,
    },
  });
  return { invitation, token };
}

export type InvitationState = 'open' | 'expired' | 'used' | 'withdrawn';

export const invitationState = (i: Invitation, now: Date): InvitationState =>
  i.acceptedAt ? 'used' : i.revokedAt ? 'withdrawn' : i.expiresAt.getTime() <= now.getTime() ? 'expired' : 'open';

/** The invitation of a link's token, with whether the invited e-mail has an account; NOT_FOUND if none. */
export async function findInvitation(
  dbs: Databases,
  token: string,
): Promise<{ invitation: Invitation; account: Account | null; teamEmail: string }> {
  const invitation =
    typeof token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(token)
      ? await dbs.live.prisma.invitation.findUnique({
          where: { tokenHash: hashInvitationToken(token) },
          include: { team: { select: { email: true } } },
        })
      : null;
  if (!invitation) throw AppError.notFound('invitation');
  const { team, ...rest } = invitation;
  const account = await dbs.live.prisma.account.findUnique({ where: { email: invitation.email } });
  return { invitation: rest, account, teamEmail: team.email };
}

/**
 * Accepts an invitation for `accountId` (who must have its e-mail), or for a new account made
 * with `password`. Once only and before it expires: the invitation is claimed by one guarded
 * UPDATE in the same transaction as the membership, so two tabs racing both find out.
 */
export async function acceptInvitation(
  dbs: Databases,
  o: { token: string; now: Date } & ({ accountId: string } | { password: string }),
): Promise<{ account: Account; membership: Membership }> {
  const { invitation } = await findInvitation(dbs, o.token);
  const state = invitationState(invitation, o.now);
  if (state !== 'open')
    throw new AppError('CONFLICT', `This invitation is ${state === 'used' ? 'already used' : state}`);
  let passwordHash: string | null = null;
  if ('password' in o) {
    const p = parseInput(z.object({ password: z.string().min(10, 'must be at least 10 characters').max(256) }), {
      password: o.password,
    });
    passwordHash = await hashPassword(p.password);
  }
  return dbs.live.prisma.$transaction(async (tx) => {
    const claimed = await tx.invitation.updateMany({
      where: { id: invitation.id, acceptedAt: null, revokedAt: null, expiresAt: { gt: o.now } },
      data: { acceptedAt: o.now },
    });
    if (claimed.count === 0) throw new AppError('CONFLICT', 'This invitation is already used or has expired');
    let account: Account | null;
    if ('accountId' in o) {
      account = await tx.account.findUnique({ where: { id: o.accountId } });
      if (!account || account.email !== invitation.email)
        throw new AppError('FORBIDDEN', `This invitation is for ${invitation.email}; sign in with that account`);
    } else {
      if (await tx.account.findUnique({ where: { email: invitation.email } }))
        throw new AppError('CONFLICT', 'An account with this e-mail exists: sign in to accept');
      account = await tx.account.create({
        data: { id: newId(), email: invitation.email, passwordHash: passwordHash! },
      });
    }
    if (account.id === invitation.teamAccountId) throw new AppError('CONFLICT', 'You own this team already');
    await tx.invitation.update({ where: { id: invitation.id }, data: { acceptedById: account.id } });
    const employee = { [invitation.mode === 'live' ? 'liveEmployeeId' : 'testEmployeeId']: invitation.employeeId };
    const existing = await tx.membership.findUnique({
      where: {
        teamAccountId_memberAccountId: { teamAccountId: invitation.teamAccountId, memberAccountId: account.id },
      },
    });
    if (existing) throw new AppError('CONFLICT', 'You are already in this team');
    const membership = await tx.membership.create({
      data: {
        id: newId(),
        teamAccountId: invitation.teamAccountId,
        memberAccountId: account.id,
        role: invitation.role,
        ...(invitation.employeeId ? employee : {}),
      },
    });
    return { account, membership };
  });
}

/** Withdraws an open invitation of the team; another team's or an unknown one is NOT_FOUND. */
export async function withdrawInvitation(
  dbs: Databases,
  o: { teamAccountId: string; invitationId: string; now: Date },
): Promise<Invitation> {
  const found = isId(o.invitationId)
    ? await dbs.live.prisma.invitation.findFirst({
        where: { id: o.invitationId, teamAccountId: o.teamAccountId, acceptedAt: null, revokedAt: null },
      })
    : null;
  if (!found) throw AppError.notFound('invitation');
  return dbs.live.prisma.invitation.update({ where: { id: found.id }, data: { revokedAt: o.now } });
}

async function findMembership(dbs: Databases, teamAccountId: string, membershipId: string): Promise<Membership> {
  const m = isId(membershipId)
    ? await dbs.live.prisma.membership.findFirst({ where: { id: membershipId, teamAccountId } })
    : null;
  if (!m) throw AppError.notFound('member');
  return m;
}

/**
 * A member's new role (and, for staff, their employee in this mode). Counts from their next
 * request. Leaving owner/admin revokes the OAuth grants they approved for the team's companies.
 */
export async function changeMemberRole(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateToken'>,
  o: {
    teamAccountId: string;
    membershipId: string;
    mode: Mode;
    companyId: string;
    input: { role?: string; employeeId?: string };
    now: Date;
  },
): Promise<{ before: Membership; after: Membership }> {
  const before = await findMembership(dbs, o.teamAccountId, o.membershipId);
  const role = parseInput(
    z.object({ role: z.enum(['admin', 'staff', 'viewer'], { message: 'must be admin, staff or viewer' }) }),
    { role: o.input.role },
  ).role;
  const employeeId =
    role === 'staff'
      ? await checkEmployee(dbs, { mode: o.mode, companyId: o.companyId, employeeId: o.input.employeeId })
      : null;
  const field = o.mode === 'live' ? 'liveEmployeeId' : 'testEmployeeId';
  const after = await dbs.live.prisma.membership.update({
    where: { id: before.id },
    data: role === 'staff' ? { role, [field]: employeeId } : { role, liveEmployeeId: null, testEmployeeId: null },
  });
  if (before.role === 'admin' && role !== 'admin')
    await revokeMemberGrants(dbs, credentials, {
      teamAccountId: o.teamAccountId,
      memberAccountId: before.memberAccountId,
      now: o.now,
    });
  return { before, after };
}

/**
 * Removes a member: the membership goes, every session of their account ends (they sign in
 * again and see only what is left to them) and the OAuth grants they approved for the team's
 * companies are revoked with their tokens.
 */
export async function removeMember(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateToken'>,
  o: { teamAccountId: string; membershipId: string; now: Date },
): Promise<{ membership: Membership; email: string; sessionsEnded: number; grantsRevoked: number }> {
  const m = await findMembership(dbs, o.teamAccountId, o.membershipId);
  const member = await dbs.live.prisma.account.findUniqueOrThrow({ where: { id: m.memberAccountId } });
  const [, sessions] = await dbs.live.prisma.$transaction([
    dbs.live.prisma.membership.delete({ where: { id: m.id } }),
    dbs.live.prisma.session.deleteMany({ where: { accountId: m.memberAccountId } }),
  ]);
  const grantsRevoked = await revokeMemberGrants(dbs, credentials, {
    teamAccountId: o.teamAccountId,
    memberAccountId: m.memberAccountId,
    now: o.now,
  });
  return { membership: m, email: member.email, sessionsEnded: sessions.count, grantsRevoked };
}

/** Revokes the grants `memberAccountId` approved for any company of the team, in either mode. */
async function revokeMemberGrants(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateToken'>,
  o: { teamAccountId: string; memberAccountId: string; now: Date },
): Promise<number> {
  const grants = await dbs.live.prisma.oAuthGrant.findMany({
    where: { accountId: o.memberAccountId, revokedAt: null },
    select: { id: true, companyId: true, mode: true },
  });
  let revoked = 0;
  for (const mode of ['live', 'test'] as const) {
    const ids = grants.filter((g) => g.mode === mode).map((g) => g.companyId);
    if (!ids.length) continue;
    const teams = await dbs.forMode(mode).company.findMany({
      where: { id: { in: ids }, accountId: o.teamAccountId },
      select: { id: true },
    });
    const ours = new Set(teams.map((c) => c.id));
    for (const g of grants.filter((x) => x.mode === mode && ours.has(x.companyId))) {
      await revokeAuthorizedApp(dbs, credentials, { accountId: o.memberAccountId, grantId: g.id, now: o.now }).catch(
        (err: unknown) => {
          // Revoked meanwhile by someone else: nothing left to do.
          if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
        },
      );
      revoked++;
    }
  }
  return revoked;
}
