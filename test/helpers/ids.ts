import { newId } from '../../src/lib/ids.js';

/** Ids of every kind a route may name, each naming nothing: what a missing resource's 404 is compared with. */
export function missingIds() {
  return {
    projectId: newId('prj'),
    runId: newId('run'),
    tokenId: newId('tok'),
    promptId: newId('prm'),
    monitorId: newId('mon'),
    modelId: newId('mdl'),
    viewId: newId('vew'),
    sessionId: 'no-such-session',
    scoreId: newId('scr'),
    scoreConfigId: newId('scc'),
    datasetId: newId('ds'),
    itemId: newId('dsi'),
    queueId: newId('aq'),
    annotationItemId: newId('aqi'),
    evaluatorId: newId('evr'),
    memberUserId: newId('usr'),
    invitationId: newId('inv'),
    modelConnectionId: newId('mcn'),
    experimentId: newId('exp'),
    otherExperimentId: newId('exp'),
  };
}
