// The entry script of the dashboard builder's page (<one-dashboard-builder>).
import '@lwc/synthetic-shadow';
import 'lightning/iconSvgTemplatesStandard'; // the dashboard icon, rendered at once
import DashboardBuilder from 'one/dashboardBuilder';
import { mountEach } from 'one/mount';

mountEach('one-dashboard-builder', DashboardBuilder);
