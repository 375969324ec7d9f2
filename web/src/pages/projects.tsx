import { PageHeader } from '../components/ui.js';

export function ProjectsPage(props: Record<string, string>) {
  void props;
  return <PageHeader title="Projects" />;
}
