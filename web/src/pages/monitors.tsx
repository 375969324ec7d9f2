import { PageHeader } from '../components/ui.js';

export function MonitorsPage(props: Record<string, string>) {
  void props;
  return <PageHeader title="Monitors" />;
}
