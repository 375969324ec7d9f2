import type { ReactNode } from 'react';
import { PageHeader, Panel } from '../components/ui.js';
import { organization } from '../api.js';
import { useDocumentTitle, useList } from '../hooks.js';
import { useSession } from '../session.js';
import { AuditLogPanel } from './settings/audit-log.js';
import { InvitationsPanel } from './settings/invitations.js';
import { ModelConnectionsPanel } from './settings/model-connections.js';
import { MembersPanel } from './settings/members.js';
import { OriginsPanel } from './settings/origins.js';
import { ScoreConfigsPanel } from './settings/score-configs.js';
import { TokensPanel } from './settings/tokens.js';

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Panel id={id} heading={`${id}-heading`} title={title} style={{ scrollMarginTop: 72 }}>
      {children}
    </Panel>
  );
}

/**
 * Settings: API tokens, members, invitations, allowed origins, score configs and (for admins) model connections and the audit log, as stacked sections with an in-page
 * table of contents. Actions a role may not take are hidden using the server's permission table
 * (`can`); the server still decides, and its refusals are shown as the problems it sends.
 */
export function SettingsPage(props: Record<string, string>) {
  void props;
  const { me, can } = useSession();
  const members = useList(organization.members);
  useDocumentTitle('Settings', me.organization.name);
  const sections = [
    { id: 'tokens', title: 'API tokens' },
    { id: 'members', title: 'Members' },
    ...(can('members:admin') ? [{ id: 'invitations', title: 'Invitations' }] : []),
    { id: 'origins', title: 'Allowed origins' },
    { id: 'score-configs', title: 'Score configs' },
    ...(can('quality:admin') ? [{ id: 'model-connections', title: 'Model connections' }] : []),
    ...(can('organization:admin') ? [{ id: 'audit-log', title: 'Audit log' }] : []),
  ];
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle={
          <>
            {me.organization.name} · {me.organization.plan} plan · signed in as {me.user.email} ({me.role})
          </>
        }
      />
      <nav className="tabs" aria-label="Settings sections">
        {sections.map((s) => (
          <a key={s.id} href={`#${s.id}`}>
            {s.title}
          </a>
        ))}
      </nav>
      <Section id="tokens" title="API tokens">
        <TokensPanel members={members.items} />
      </Section>
      <Section id="members" title="Members">
        <MembersPanel list={members} />
      </Section>
      {can('members:admin') && (
        <Section id="invitations" title="Invitations">
          <InvitationsPanel />
        </Section>
      )}
      <Section id="origins" title="Allowed origins">
        <OriginsPanel />
      </Section>
      <Section id="score-configs" title="Score configs">
        <ScoreConfigsPanel />
      </Section>
      {can('quality:admin') && (
        <Section id="model-connections" title="Model connections">
          <ModelConnectionsPanel />
        </Section>
      )}
      {can('organization:admin') && (
        <Section id="audit-log" title="Audit log">
          <AuditLogPanel members={members.items} />
        </Section>
      )}
    </>
  );
}
