import { PageHeader } from '../components/ui.js';

export function MonitorPage(props: Record<string, string>) {
  void props;
  return <PageHeader title="Monitor" />;
}
