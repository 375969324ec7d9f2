import { PageHeader } from '../components/ui.js';

export function SettingsPage(props: Record<string, string>) {
  void props;
  return <PageHeader title="Settings" />;
}
