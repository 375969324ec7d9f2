import { PageHeader } from '../components/ui.js';

export function RunPage(props: Record<string, string>) {
  void props;
  return <PageHeader title="Run" />;
}
