import { PageHeader } from '../components/ui.js';

export function RunsPage(props: Record<string, string>) {
  void props;
  return <PageHeader title="Runs" />;
}
