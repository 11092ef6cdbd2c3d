// The entry script of the report builder's page (<one-report-builder>).
import '@lwc/synthetic-shadow';
import 'lightning/iconSvgTemplatesStandard'; // the report icon, rendered at once
import ReportBuilder from 'one/reportBuilder';
import { mountEach } from 'one/mount';

mountEach('one-report-builder', ReportBuilder);
